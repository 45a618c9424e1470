/// The bounds a ``SandboxServer`` puts on what clients send and how long they may take; a
/// client past one gets an error status (or a closed connection) instead of the server's memory
/// or threads.
package struct ServerLimits: Sendable, Hashable {
    /// The largest request head (request line and header fields) read: 32 KiB, as nginx's default
    /// `large_client_header_buffers` allows about that much. Beyond it: `431`.
    package var maxHeadBytes: Int
    /// The most header fields in one request: 100 (Go's and nginx's order of magnitude). Beyond it: `431`.
    package var maxHeaderFields: Int
    /// The largest request body: 8 MiB. Beyond it: `413`.
    package var maxBodyBytes: Int
    /// How long a read or write may wait: an idle keep-alive connection is closed after it.
    package var socketTimeout: Duration
    /// The most connections served at once; one more is closed at once (each has its own thread).
    package var maxConnections: Int

    /// Creates limits; the defaults suit a sandbox on a developer's machine.
    package init(
        maxHeadBytes: Int = 32 * 1024, maxHeaderFields: Int = 100, maxBodyBytes: Int = 8 << 20,
        socketTimeout: Duration = .seconds(30), maxConnections: Int = 64
    ) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderFields = maxHeaderFields
        self.maxBodyBytes = maxBodyBytes
        self.socketTimeout = socketTimeout
        self.maxConnections = maxConnections
    }
}
