import Strata

/// Something the HTTP/1.1 client did on a connection, reported on the connection's thread to the
/// hook it was created with (the pool turns it into a ``PinningEvent``).
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

extension PinningEvent {
    /// The pinning event for what the HTTP/1.1 client did on a connection to `host`.
    init(_ event: HTTP1Event, host: String) {
        switch event {
        case .requestSent(let method, let bytes): self = .requestWritten(host: host, method: method, bytes: bytes)
        case .interimResponseSkipped(let status): self = .interimResponseSkipped(host: host, statusCode: status)
        case .responseReceived(let status, let bytes, let keepAlive):
            self = .responseRead(host: host, statusCode: status, bodyBytes: bytes, keepAlive: keepAlive)
        case .failed(let kind, let message): self = .exchangeFailed(host: host, kind: kind, message: message)
        }
    }
}
