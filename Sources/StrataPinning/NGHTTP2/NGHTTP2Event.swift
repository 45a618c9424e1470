/// Something an ``NGHTTP2Session`` learned while reading the server's bytes or writing its own,
/// as a Swift value: nghttp2's frames, header fields and stream closures never leave the
/// `NGHTTP2` folder in any other form.
enum NGHTTP2Event: Sendable, Equatable {
    /// A complete header block (HEADERS plus any CONTINUATION frames) arrived on `streamID`:
    /// fields in order (pseudo-header fields included), and whether it ended the stream.
    case headers(streamID: Int32, fields: [HTTP2Field], endStream: Bool)
    /// Response body bytes arrived on `streamID`.
    case data(streamID: Int32, bytes: [UInt8])
    /// A DATA frame with END_STREAM arrived: the response on `streamID` is complete.
    case endStream(streamID: Int32)
    /// The server reset `streamID` (RST_STREAM) with `code`.
    case reset(streamID: Int32, code: HTTP2ErrorCode)
    /// The server's header block on `streamID` went past a limit; the stream was cancelled.
    case headerLimitExceeded(streamID: Int32, HTTP2HeaderLimit)
    /// nghttp2 found the server's frame on `streamID` malformed (RFC 9113 §8.1.1) and reset the
    /// stream with PROTOCOL_ERROR; `reason` is nghttp2's text.
    case malformed(streamID: Int32, reason: String)
    /// nghttp2 refused a `:status` field on `streamID` (not three characters, not digits, `101`,
    /// or a second one in the block) and reset the stream with PROTOCOL_ERROR. `values` are the
    /// block's `:status` values in order, the refused one last, for ``HTTPStatusCodeRule`` to
    /// name what was wrong as it does for HTTP/1.1.
    case statusRefused(streamID: Int32, values: [[UInt8]])
    /// `streamID` closed; `code` is NO_ERROR for an orderly end.
    case closed(streamID: Int32, code: HTTP2ErrorCode)
    /// The request on `streamID` was never sent: the server never saw it. `refused` when the
    /// connection could take no new stream (a GOAWAY arrived, identifiers ran out), false when
    /// the request itself could not be sent (such as a header block too large to encode).
    case notSent(streamID: Int32, refused: Bool, reason: String)
    /// A HEADERS or DATA frame for `streamID` was written: progress of the upload.
    case sent(streamID: Int32)
    /// The server sent GOAWAY: streams above `lastStreamID` were not and will not be processed.
    case goAway(lastStreamID: Int32, code: HTTP2ErrorCode, debug: String)
    /// The server's SETTINGS arrived; `maxConcurrentStreams` is its current limit.
    case settings(maxConcurrentStreams: Int)
    /// The server acknowledged our PING.
    case pingAcknowledged
    /// nghttp2 ended the connection because the server broke the protocol (a connection
    /// error, RFC 9113 §5.4.1); it sends GOAWAY with `code`. `reason` is nghttp2's text.
    case connectionError(code: HTTP2ErrorCode, reason: String)
}

/// One header field as received or to be sent, as bytes decoded to text (invalid UTF-8 becomes
/// U+FFFD, as in the HTTP/1.1 parser).
struct HTTP2Field: Sendable, Hashable {
    var name: String
    var value: String
}

/// Which limit a header block exceeded.
enum HTTP2HeaderLimit: Sendable, Hashable {
    /// The block's size by RFC 9113 §6.5.2 (name and value octets plus 32 per field).
    case listBytes(Int)
    /// The number of fields other than pseudo-header fields.
    case fieldCount(Int)
}
