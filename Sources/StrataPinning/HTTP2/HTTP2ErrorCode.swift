/// An HTTP/2 error code (RFC 9113 §7), as carried by RST_STREAM and GOAWAY frames.
///
/// A struct rather than an enum because a peer may send any 32-bit value: unknown codes must be
/// kept (and treated as ``internalError`` in meaning, §7), not rejected.
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent on the wire.
    public var rawValue: UInt32

    /// Creates a code from its wire value.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NO_ERROR` (0x0): a graceful end, such as a server shutting down.
    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    /// `PROTOCOL_ERROR` (0x1): a peer broke the protocol.
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    /// `INTERNAL_ERROR` (0x2): the peer failed on its own.
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    /// `FLOW_CONTROL_ERROR` (0x3): a flow-control window was violated.
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    /// `SETTINGS_TIMEOUT` (0x4): SETTINGS were not acknowledged in time.
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    /// `STREAM_CLOSED` (0x5): a frame arrived for a half-closed stream.
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// `FRAME_SIZE_ERROR` (0x6): a frame had an invalid size.
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// `REFUSED_STREAM` (0x7): the stream was refused before any processing; safe to retry.
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    /// `CANCEL` (0x8): the stream is no longer needed.
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    /// `COMPRESSION_ERROR` (0x9): the header compression context broke.
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    /// `CONNECT_ERROR` (0xa): a CONNECT tunnel failed.
    public static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    /// `ENHANCE_YOUR_CALM` (0xb): the peer thinks we generate excessive load.
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    /// `INADEQUATE_SECURITY` (0xc): the TLS parameters are not good enough for HTTP/2.
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    /// `HTTP_1_1_REQUIRED` (0xd): the server wants this request over HTTP/1.1.
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    private static let names: [UInt32: String] = [
        0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
        0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM",
        0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
        0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED",
    ]

    /// The RFC name, such as `REFUSED_STREAM`, or `unknown error code 0x…`.
    public var description: String {
        Self.names[rawValue] ?? "unknown error code 0x\(String(rawValue, radix: 16))"
    }
}
