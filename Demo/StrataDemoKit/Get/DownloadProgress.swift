import Strata

/// How much of a body `get` has received, updated by the task reading it and read by the
/// ``ProgressLine`` redrawing on standard error.
final class DownloadProgress: Sendable {
    private let state = LockedValue((received: Int64(0), total: Int64?.none))

    /// Records the body's announced length (its `Content-Length`), when there is one.
    func expect(_ total: Int64?) {
        state.withLock { $0.total = total }
    }

    /// Counts `bytes` more received.
    func add(_ bytes: Int) {
        state.withLock { $0.received += Int64(bytes) }
    }

    /// Bytes received so far, and the total when known.
    var snapshot: (received: Int64, total: Int64?) { state.withLock { $0 } }
}
