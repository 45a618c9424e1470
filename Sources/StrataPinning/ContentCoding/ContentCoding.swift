/// A content coding (RFC 9110 §8.4.1) `PinningTransport` can ask for and decode.
///
/// Which ones a build supports is ``supported``: gzip and deflate always (system zlib), `br` and
/// `zstd` when the build found the system brotli and zstd headers (Debian `libbrotli-dev`,
/// `libzstd-dev`).
public enum ContentCoding: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `gzip` (RFC 1952); `x-gzip` is read as the same coding (RFC 9110 §8.4.1.3).
    case gzip
    /// `deflate`: the zlib format (RFC 1950), and also the raw deflate stream (RFC 1951) that
    /// some servers send under this name, told apart by the zlib header.
    case deflate
    /// `br`, Brotli (RFC 7932).
    case brotli = "br"
    /// `zstd`, Zstandard (RFC 8878), with a window of at most 8 MiB as the RFC's content coding asks.
    case zstd

    /// The codings this build can decode, in the order they are offered: gzip, deflate, then br
    /// and zstd when built in.
    public static var supported: [ContentCoding] {
        var codings: [ContentCoding] = [.gzip, .deflate]
        #if STRATA_BROTLI
        codings.append(.brotli)
        #endif
        #if STRATA_ZSTD
        codings.append(.zstd)
        #endif
        return codings
    }

    /// The coding a `Content-Encoding` token names, ignoring case; `nil` for any other token.
    init?(token: some StringProtocol) {
        let lowered = token.lowercased()
        guard let coding = ContentCoding(rawValue: lowered == "x-gzip" ? "gzip" : lowered) else { return nil }
        self = coding
    }

    /// The coding's token, as `Accept-Encoding` and `Content-Encoding` spell it.
    public var description: String { rawValue }
}
