import Strata

/// One request's turn on a slot of the HTTP/1.1 pool as the ``HTTP2Pool`` sees it: what it
/// taught the pool about the host's protocol, told exactly once however the turn ends, so the
/// pool's count of attempts under way stays right and its waiters go on as soon as they can.
///
/// A new connection tells at the end of its handshake: HTTP/1.1 at once (requests waiting to
/// learn the protocol need not wait for this response), HTTP/2 once the connection was adopted
/// (``HTTP2Pool/adopt(_:from:of:)``). A kept connection, which never handshakes, tells HTTP/1.1
/// with its response. A turn that ends before either (no slot, a failed connect or trust
/// check, a cancelled caller) tells that it failed.
final class ConnectionAttempt: Sendable {
    /// What the turn taught.
    enum Learned: Sendable {
        /// The host answered over HTTP/1.1 (its server selected `http/1.1` or no protocol).
        case http1
        /// A new connection became this HTTP/2 connection, a stream on it claimed for the request.
        case http2(HTTP2Connection)
        /// The turn ended before a protocol was known.
        case failed
    }

    /// The pool the attempt reports to, which adopts its connection if it turns out to be HTTP/2.
    let pool: HTTP2Pool
    /// The host and port the attempt connects to.
    let key: ConnectionPool.Key
    /// Whether the pool counts this as the host's connection attempt (one at a time per host
    /// while its protocol is unknown), rather than a turn on the HTTP/1.1 pool of a host known
    /// to answer over HTTP/1.1.
    let counted: Bool
    private let reported = LockedValue(false)

    init(pool: HTTP2Pool, key: ConnectionPool.Key, counted: Bool) {
        self.pool = pool
        self.key = key
        self.counted = counted
    }

    /// Tells the pool what the turn taught, the first time only; an HTTP/2 connection is
    /// registered whenever it comes (it carries a stream).
    func report(_ learned: Learned) {
        let first = reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        switch learned {
        case let .http2(connection):
            pool.established(connection, for: key, counted: counted && first)
        case .http1:
            if first { pool.learnedHTTP1(for: key, counted: counted) }
        case .failed:
            if first, counted { pool.attemptFailed(for: key) }
        }
    }
}
