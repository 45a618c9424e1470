import Foundation
import Strata

/// The content-coding decisions for one pinned exchange, as pure functions of the request, the
/// configuration and the response head: what `Accept-Encoding` to send, and whether (and how)
/// the response is decoded.
///
/// Rules:
/// - The caller's own `Accept-Encoding` wins: it is sent as it is, and the response is handed
///   over untouched (the caller asked for those bytes).
/// - No coding is offered for a request with a `Range` header: a range of a coded
///   representation cannot be decoded on its own (OkHttp does the same).
/// - A response is decoded only when its `Content-Encoding` is exactly one coding that was
///   offered (`identity` entries ignored, `x-gzip` read as gzip). Several codings stacked, or one
///   that was not offered, leave the response untouched, headers included, so the caller sees
///   what it got rather than half-decoded bytes.
/// - A decoded response loses `Content-Encoding` and `Content-Length` (which counted coded
///   bytes), as URLSession and OkHttp do; so does the head of a response without a body (`HEAD`,
///   `204`, `304`), so a 304 never paints `Content-Encoding` onto a decoded body an
///   `ETagTransport` stored.
struct ContentNegotiation: Sendable {
    /// The request to send: the caller's, with `Accept-Encoding` added when codings are offered.
    let request: HTTPRequest
    /// The codings offered; empty when none were (the caller chose, a range, decoding off).
    let offered: [ContentCoding]

    /// What a transport offers every request: its codings and the `Accept-Encoding` value
    /// listing them, worked out once when the transport is made rather than for each request.
    struct Offer: Sendable {
        /// ``ContentDecoding/offered``: the configured codings this build includes, each once.
        let codings: [ContentCoding]
        /// The codings as an `Accept-Encoding` value, in order.
        let acceptEncoding: String

        init(_ decoding: ContentDecoding) {
            codings = decoding.offered
            acceptEncoding = codings.map(\.description).joined(separator: ", ")
        }
    }

    /// Decides what `request` offers under `offer`.
    init(_ request: HTTPRequest, offer: Offer) {
        var request = request
        let offered = request.headers.contains("Accept-Encoding") || request.headers.contains("Range") ? [] : offer.codings
        if !offered.isEmpty {
            request.headers["Accept-Encoding"] = offer.acceptEncoding
        }
        self.request = request
        self.offered = offered
    }

    /// The coding the response with `head` is decoded from, or `nil` to hand it over untouched.
    func coding(of head: HTTPResponseHead) -> ContentCoding? {
        guard !offered.isEmpty else { return nil }
        let tokens = head.headers.values(for: "Content-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.lowercased() != "identity" }
        guard tokens.count == 1, let coding = ContentCoding(token: tokens[0]), offered.contains(coding) else { return nil }
        return coding
    }

    /// Whether a response with `statusCode` to this request carries a body to decode (RFC 9110
    /// §6.4.1: none for `HEAD`, `1xx`, `204` and `304`).
    func hasBody(statusCode: Int) -> Bool {
        request.method != .head && statusCode >= 200 && statusCode != 204 && statusCode != 304
    }

    /// `headers` as a decoded response carries them: without `Content-Encoding` and `Content-Length`.
    static func decodedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Content-Length")
        return headers
    }
}
