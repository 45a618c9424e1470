import Strata

/// Something the HTTP/2 client did for one exchange, collected by the ``HTTP2Multiplexer`` on the
/// connection's thread and turned into a ``PinningEvent`` for the caller's task, as
/// ``HTTP1Event`` is for HTTP/1.1.
enum HTTP2Event: Sendable, Hashable {
    /// The request was queued on stream `streamID`, with a body of `bodyBytes` bytes.
    case requestSent(streamID: Int32, method: HTTPMethod, bodyBytes: Int)
    /// A complete response arrived on stream `streamID`.
    case responseReceived(streamID: Int32, statusCode: Int, bodyBytes: Int)
    /// The request on stream `streamID` failed.
    case failed(streamID: Int32, kind: TransportError.Kind, message: String)
    /// The server's SETTINGS arrived: it accepts `maxConcurrentStreams` streams at once.
    case settingsReceived(maxConcurrentStreams: Int)
    /// The server sent GOAWAY.
    case goAwayReceived(lastStreamID: Int32, code: HTTP2ErrorCode)
    /// The quiet connection was checked with a PING.
    case pingSent
}

extension PinningEvent {
    /// The pinning event for what the HTTP/2 client did on a connection to `host`.
    init(_ event: HTTP2Event, host: String) {
        switch event {
        case let .requestSent(streamID, method, bytes):
            self = .streamOpened(host: host, streamID: streamID, method: method, bodyBytes: bytes)
        case let .responseReceived(streamID, status, bytes):
            self = .streamResponseRead(host: host, streamID: streamID, statusCode: status, bodyBytes: bytes)
        case let .failed(streamID, kind, message):
            self = .streamFailed(host: host, streamID: streamID, kind: kind, message: message)
        case let .settingsReceived(streams): self = .http2SettingsReceived(host: host, maxConcurrentStreams: streams)
        case let .goAwayReceived(last, code): self = .goAwayReceived(host: host, lastStreamID: last, code: code)
        case .pingSent: self = .pingSent(host: host)
        }
    }
}
