import Strata

/// Something the HTTP/2 client did on a connection, reported to an observer (a logging layer,
/// metrics, a test) through the `onEvent` hook, as ``HTTP1Event`` is for HTTP/1.1.
public enum HTTP2Event: Sendable, Hashable {
    /// A request was queued on stream `streamID`, with a body of `bodyBytes` bytes.
    case requestSent(streamID: Int32, method: HTTPMethod, bodyBytes: Int)
    /// A complete response arrived on stream `streamID`.
    case responseReceived(streamID: Int32, statusCode: Int, bodyBytes: Int)
    /// The request on stream `streamID` failed; other streams on the connection carry on unless
    /// the failure was the connection's.
    case failed(streamID: Int32, kind: TransportError.Kind, message: String)
    /// The server's SETTINGS arrived: it accepts `maxConcurrentStreams` streams at once.
    case settingsReceived(maxConcurrentStreams: Int)
    /// The server sent GOAWAY: streams above `lastStreamID` were not processed and are retried
    /// on a new connection; no new request goes to this one.
    case goAwayReceived(lastStreamID: Int32, code: HTTP2ErrorCode)
    /// The connection was quiet while requests were in flight, so a PING was sent to check it.
    case pingSent
}
