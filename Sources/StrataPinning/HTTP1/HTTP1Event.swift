import Strata

/// Something the HTTP/1.1 client did on a connection, reported on the connection's thread to the
/// hook it was created with (the pool collects it for the job, and the transport reports it).
enum HTTP1Event: Sendable, Hashable {
    /// A request was written completely: its method and size in bytes (head and body).
    case requestSent(method: HTTPMethod, bytes: Int)
    /// An interim `1xx` response (such as `100 Continue` or `103 Early Hints`) was read and skipped.
    case interimResponseSkipped(statusCode: Int)
    /// A complete final response was read: its status, body size, and whether the connection
    /// can carry another request.
    case responseReceived(statusCode: Int, bodyBytes: Int, keepAlive: Bool)
    /// The exchange failed; the connection was closed and will not be reused.
    case failed(kind: TransportError.Kind, message: String)
}
