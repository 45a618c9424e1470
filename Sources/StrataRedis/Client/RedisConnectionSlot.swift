import Dispatch
import Strata

/// One lane of ``RedisConnectionPool``: a serial dispatch queue of its own, on which every
/// blocking call of its connection runs, and that connection while it is open.
///
/// Private serial queues are served by libdispatch's overcommitting threads, not by the
/// width-limited queue Swift's cooperative pool runs on, so a lane blocked on a slow server
/// never holds up a task (the same arrangement as `FileETagStore`'s queue). A lane is used by
/// one caller at a time: the pool hands it out and takes it back.
final class RedisConnectionSlot: Sendable {
    private let queue: DispatchQueue
    private let settings: RedisConnection.Settings
    // Only read and written by jobs on `queue`; the lock satisfies `Sendable` and ThreadSanitizer.
    private let connection = LockedValue<RedisConnection?>(nil)

    /// Creates a lane with no connection; the first command opens one.
    init(index: Int, settings: RedisConnection.Settings) {
        queue = DispatchQueue(label: "Strata.RedisETagStore.connection-\(index)")
        self.settings = settings
    }

    /// Sends `commands` as one pipelined batch on this lane's connection, opening one if there is
    /// none or the server closed it. A kept connection that turns out dead (the server restarted
    /// since it was last used) is replaced once; the commands this client sends are idempotent,
    /// so sending them again is safe.
    func send(_ commands: [RedisCommand]) async -> Result<[RESPValue], RedisClientError> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.sendBlocking(commands)) }
        }
    }

    private func sendBlocking(_ commands: [RedisCommand]) -> Result<[RESPValue], RedisClientError> {
        if let kept = connection.withLock({ $0.take() }), !kept.isStale {
            switch Result(catching: { () throws(RedisClientError) in try kept.execute(commands, deadline: deadline()) }) {
            case .success(let replies):
                connection.withLock { $0 = kept }
                return .success(replies)
            case .failure(.connectionLost):
                break
            case .failure(let error):
                return .failure(error)
            }
        }
        return Result { () throws(RedisClientError) in
            let opened = try RedisConnection.open(settings)
            let replies = try opened.execute(commands, deadline: deadline())
            connection.withLock { $0 = opened }
            return replies
        }
    }

    private func deadline() -> ContinuousClock.Instant { .now + settings.commandTimeout }
}
