#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Dispatch
import Foundation

/// Where ``URLSessionTransport`` calls URLSession's task methods (create, resume, cancel,
/// invalidate): a serial queue of its own, never Swift's cooperative pool or the session's
/// delegate queue.
///
/// On Linux, FoundationNetworking implements these with `DispatchQueue.sync` onto its serial
/// work queue, the queue libcurl's socket reads run on, and libcurl keeps it for as long
/// as the socket stays readable: a peer that sends faster than the client takes the bytes holds
/// it until the peer pauses (a cancel then stops the transfer in a second turn on that queue).
/// Called from the cooperative pool, each such call blocks one of its threads (there is one per
/// core): in a full test run on two cores, one `dataTask(with:)` and one `cancel()` waiting
/// behind a fast download held both threads, and every task of the process stopped for 60 s.
/// Called from here, only this queue waits: creating a task suspends the caller, and resume,
/// cancel and invalidate are not waited for (a cancelled transfer stops once libcurl lets go).
/// A new request still waits for that queue, suspended, and its deadline is checked once its
/// task exists (``URLSessionExchange``): no thread is held meanwhile.
final class URLSessionTaskCalls: Sendable {
    private let queue = DispatchQueue(label: "Strata.URLSessionTransport.taskCalls")

    /// Runs `call` on the queue and returns its result; the caller suspends meanwhile.
    func perform<Result: Sendable>(_ call: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: call()) }
        }
    }

    /// Runs `call` on the queue, later; the caller does not wait.
    func enqueue(_ call: @escaping @Sendable () -> Void) {
        queue.async(execute: call)
    }
}
