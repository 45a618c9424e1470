/// The limits the pinned HTTP clients (HTTP/1.1 and HTTP/2 alike) apply to everything a server
/// sends, so a hostile or broken server gets a typed error instead of unbounded memory or a hang.
///
/// Over HTTP/2, ``maxHeaderBlockBytes`` bounds a decoded header list (counted as RFC 9113 §6.5.2
/// counts it) and ``maxChunkSizeLineBytes`` does not apply (HTTP/2 has no chunked coding).
///
/// The defaults fit ordinary JSON APIs; for downloads, use `PinningTransport.stream` (not capped by
/// ``maxResponseBodyBytes``) or raise the limit. Every limit is
/// checked as bytes arrive, before anything is allocated for them.
public struct HTTPLimits: Sendable, Hashable {
    /// The most bytes a response head (status line, header lines and the blank line) may take,
    /// and separately the most bytes a chunked body's trailer section may take.
    /// Default 64 KiB, the common server-side limit (nginx `large_client_header_buffers` scale).
    public var maxHeaderBlockBytes: Int
    /// The most header fields one response head (or trailer section) may carry. Default 100.
    public var maxHeaderCount: Int
    /// The most body bytes one response read whole (`send`) may carry, however it is framed.
    /// Default 64 MiB. A body read with `stream` is not capped by it: `consume` holds what it
    /// chooses, and the connection reads only as it asks (the head, chunk-size lines and trailers
    /// stay bounded by the other limits).
    public var maxResponseBodyBytes: Int
    /// The longest chunk-size line (size, extensions and CRLF) a chunked body may use.
    /// Default 4 KiB: sizes are at most 16 hex digits, extensions are rare and short.
    public var maxChunkSizeLineBytes: Int
    /// How many interim `1xx` responses (such as `100 Continue` or `103 Early Hints`) may precede
    /// the final response before the exchange is abandoned. Default 16.
    public var maxInterimResponses: Int

    /// Creates limits; every parameter defaults to the documented default.
    public init(
        maxHeaderBlockBytes: Int = 64 * 1024, maxHeaderCount: Int = 100,
        maxResponseBodyBytes: Int = 64 * 1024 * 1024, maxChunkSizeLineBytes: Int = 4 * 1024,
        maxInterimResponses: Int = 16
    ) {
        self.maxHeaderBlockBytes = maxHeaderBlockBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.maxChunkSizeLineBytes = maxChunkSizeLineBytes
        self.maxInterimResponses = maxInterimResponses
    }

    /// The default limits.
    public static let `default` = HTTPLimits()
}

/// The name of ``HTTPLimits`` before 0.4, when only the HTTP/1.1 client applied them.
@available(*, deprecated, renamed: "HTTPLimits")
public typealias HTTP1Limits = HTTPLimits
