import Strata
import StrataConnect

/// One lane of ``RedisConnectionPool``: a `ConnectionThread` of its own, on which every blocking
/// call of its connection runs, and that connection while it is open.
///
/// The same I/O model as StrataPinning's pooled connections: one dedicated thread per
/// connection, never a thread of Swift's cooperative pool, so a lane blocked on a slow server
/// never holds up a task, and one wake-up per batch. The pool's `maxConnections` bounds how many
/// exist. A lane is used by one caller at a time: the pool hands it out and takes it back.
final class RedisConnectionSlot: Sendable {
    /// How long a lane may go without a batch before it retires (its connection closed, its
    /// thread ended), as a pinned connection's slot does after its idle timeout; the pool
    /// opens a new lane when it needs one again.
    static let idleTimeout = Duration.seconds(60)

    private let thread = ConnectionThread()
    private let settings: RedisConnection.Settings
    // Only read and written by jobs on `thread`; the lock satisfies `Sendable` and ThreadSanitizer.
    private let connection = LockedValue<RedisConnection?>(nil)

    /// Creates a lane with no connection and starts its thread; the first command opens a connection.
    ///
    /// - Parameter retire: Called on the lane's thread after ``idleTimeout`` without a batch;
    ///   returns true when the pool took the lane out of its idle list, and the lane then closes
    ///   its connection and ends its thread. False (the lane is leased) keeps it.
    init(index: Int, settings: RedisConnection.Settings, retire: @escaping @Sendable (RedisConnectionSlot) -> Bool) {
        self.settings = settings
        thread.start(name: "Strata.RedisETagStore.connection-\(index)", idleTimeout: Self.idleTimeout) { [weak self] in
            guard let self else { return true }
            guard retire(self) else { return false }
            // Dropping the connection closes its socket.
            self.connection.withLock { $0 = nil }
            return true
        }
    }

    /// Ends the thread (after a batch still running) when the pool that held the lane goes away.
    deinit { thread.stop() }

    /// Sends `commands` as one pipelined batch on this lane's connection, opening one if there is
    /// none or the server closed it. A kept connection that turns out dead (the server restarted
    /// since it was last used) is replaced once; the commands this client sends are idempotent,
    /// so sending them again is safe.
    func send(_ commands: [RedisCommand]) async -> Result<[RESPValue], RedisClientError> {
        await withCheckedContinuation { continuation in
            thread.submit { continuation.resume(returning: self.sendBlocking(commands)) }
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
