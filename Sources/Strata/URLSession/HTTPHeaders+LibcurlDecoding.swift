#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension HTTPHeaders {
    /// The header fields of a response as ``URLSessionTransport`` hands it over: without
    /// `Content-Encoding` and `Content-Length` when the server coded the body.
    ///
    /// Linux quirk: FoundationNetworking has libcurl offer `Accept-Encoding: deflate, gzip, br,
    /// zstd` on every request (Debian 12's libcurl; a request's own `Accept-Encoding` is sent but
    /// the body is decoded anyway) and decode the body, yet keeps the server's `Content-Encoding`
    /// and coded `Content-Length`. A coding libcurl does not know fails the request, so a body
    /// that arrives was decoded; the two fields would describe bytes the caller never sees, and
    /// `PinningTransport` removes them from the responses it decodes too.
    static func decodedByLibcurl(_ response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders(response)
        guard let coding = headers["Content-Encoding"],
            coding.trimmingCharacters(in: .whitespaces).lowercased() != "identity"
        else { return headers }
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Content-Length")
        return headers
    }
}
