import Dispatch

/// A serial executor that runs an actor's jobs on its own `DispatchQueue`, off Swift's
/// cooperative pool. (Linux's Dispatch has no `DispatchSerialQueue` executor, hence this.)
///
/// ``FileETagStore`` makes blocking file calls (`open`, `read`, `fsync`, `rename`). On the
/// cooperative pool, which has one thread per core (two here), each of those would stall
/// unrelated tasks; on a queue of its own it only delays the store's own callers. Because the
/// store's methods never suspend, running them on this executor also keeps the actor free of
/// reentrancy: each call's file operations and index updates happen as one step.
final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
