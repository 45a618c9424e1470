/// Whether and how `PinningTransport` asks pinned hosts for compressed responses, and the
/// limits that keep decoding them safe.
///
/// By default every coding of ``ContentCoding/supported`` is offered (`Accept-Encoding: gzip,
/// deflate, br, zstd` where all are built in) to a request that has no `Accept-Encoding` of its
/// own, and a response in one of them is decoded as its body streams: the caller sees the decoded
/// bytes, without `Content-Encoding` or the coded `Content-Length`. A request that sets its own
/// `Accept-Encoding` gets the server's bytes untouched.
///
/// Decoding is where a small response can become a huge one (a gigabyte of zeros gzips to about
/// a megabyte), so besides the buffered limit (`limits.maxResponseBodyBytes`, counted in
/// decoded bytes) two guards stop a body that expands too much, `send` and `stream` alike, with
/// `TransportError` of kind `invalidResponse` naming the setting to change.
public struct ContentDecoding: Sendable, Hashable {
    /// The codings offered and decoded, in the order `Accept-Encoding` lists them. Default:
    /// ``ContentCoding/supported``; empty sends no `Accept-Encoding` and decodes nothing. A
    /// coding this build does not include is ignored.
    public var codings: [ContentCoding]
    /// The most decoded bytes one coded byte may become, checked once ``ratioCheckedAboveBytes``
    /// were decoded. Default 200: JSON and text compress 5–20 times, repetitive logs 50–100;
    /// a run of zeros gzips about 1,000 times (230 times at gzip's fastest level), and brotli or
    /// zstd millions.
    public var maxExpansionRatio: Int
    /// How many decoded bytes a body may reach before ``maxExpansionRatio`` is checked, so a
    /// small, very regular response (a page of identical rows) is never refused. Default 1 MiB.
    public var ratioCheckedAboveBytes: Int
    /// The most decoded bytes of one streamed body (`stream`), or `nil` (the default) for no
    /// limit: a stream's consumer holds what it chooses. A buffered body (`send`) is limited by
    /// `limits.maxResponseBodyBytes` or a `ResponseBodyLimit` instead.
    public var maxStreamedBytes: Int64?

    /// Creates a content-decoding configuration; every parameter defaults to the documented default.
    public init(
        codings: [ContentCoding] = ContentCoding.supported, maxExpansionRatio: Int = 200,
        ratioCheckedAboveBytes: Int = 1 << 20, maxStreamedBytes: Int64? = nil
    ) {
        self.codings = codings
        self.maxExpansionRatio = maxExpansionRatio
        self.ratioCheckedAboveBytes = ratioCheckedAboveBytes
        self.maxStreamedBytes = maxStreamedBytes
    }

    /// Offers and decodes nothing: every response reaches the caller as the server sent it.
    public static let disabled = ContentDecoding(codings: [])

    /// The codings actually offered: ``codings`` that this build includes, each once.
    var offered: [ContentCoding] {
        var seen: [ContentCoding] = []
        for coding in codings where ContentCoding.supported.contains(coding) && !seen.contains(coding) {
            seen.append(coding)
        }
        return seen
    }
}
