import Strata

/// Something the HTTP/2 client did for one exchange, collected by the ``HTTP2Multiplexer`` on the
/// connection's thread and handed to the caller's task with the exchange's outcome, where the
/// transport reports it, as ``HTTP1Event`` is for HTTP/1.1.
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
