#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension HTTPHeaders {
    /// The content codings libcurl decodes on Debian 12 (libcurl 7.88 with zlib, brotli and
    /// zstd), as its "Unrecognized content encoding type" error lists them, plus the names it
    /// takes for no coding at all.
    static let libcurlCodings: Set<String> = ["identity", "none", "gzip", "x-gzip", "deflate", "br", "zstd"]

    /// The header fields of a response as ``URLSessionTransport`` hands it over: without
    /// `Content-Encoding` and `Content-Length` when libcurl decoded the body.
    ///
    /// Linux quirk: FoundationNetworking has libcurl offer `Accept-Encoding: deflate, gzip, br,
    /// zstd` on every request (Debian 12's libcurl; a request's own `Accept-Encoding` is sent but
    /// the body is decoded anyway) and decode the body, yet keeps the server's `Content-Encoding`
    /// and coded `Content-Length`. The two fields would describe bytes the caller never sees, and
    /// `PinningTransport` removes them from the responses it decodes too. A coding libcurl does
    /// not know (``codingUnknownToLibcurl``) is left as the server sent it: libcurl fails such a
    /// body at its first byte, so a response that arrives with one has no body and nothing was
    /// decoded.
    static func decodedByLibcurl(_ response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders(response)
        guard let coding = headers["Content-Encoding"],
            coding.trimmingCharacters(in: .whitespaces).lowercased() != "identity",
            headers.codingUnknownToLibcurl == nil
        else { return headers }
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Content-Length")
        return headers
    }

    /// The first coding of `Content-Encoding` that libcurl cannot decode (`x-custom`,
    /// `compress`), or `nil` when it decodes them all or there is none.
    var codingUnknownToLibcurl: String? {
        HeaderRules.listElements(values(for: "Content-Encoding")).first { !Self.libcurlCodings.contains($0.lowercased()) }
    }
}
