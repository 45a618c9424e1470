import Foundation
import Strata

/// A request as HTTP/2 carries it (RFC 9113 §8.3.1): pseudo-header fields, then the caller's
/// fields in lower case, then the body in DATA frames.
///
/// It is made from the validated ``HTTP1Request``, so both protocols accept and refuse exactly
/// the same requests with the same errors. What differs is only framing:
/// - `Host` becomes `:authority`; the target becomes `:path`; `:scheme` is always `https`.
/// - `content-length` is written as the HTTP/1.1 encoder would (a body, or `POST`/`PUT`/`PATCH`).
/// - Connection-specific fields are dropped (RFC 9113 §8.2.2 forbids them and makes a request
///   carrying one malformed): `Connection`, `Keep-Alive`, `Proxy-Connection`, `Upgrade`, and
///   `TE` unless it is exactly `trailers`. They mean nothing on a multiplexed connection.
struct HTTP2Request: Sendable {
    /// The method, for errors, events and the retry rule.
    var method: HTTPMethod
    /// The URL the request was made from, for error messages.
    var url: URL?
    /// The header list: pseudo-header fields first.
    var fields: [HTTP2Field]
    /// The body, sharing the encoded request's storage.
    var body: ArraySlice<UInt8>

    private static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "upgrade",
                                                          "transfer-encoding"]

    /// Frames `request` for HTTP/2.
    init(_ request: HTTP1Request) {
        method = request.method
        url = request.url
        body = request.body
        fields = [HTTP2Field(name: ":method", value: request.method.rawValue),
                  HTTP2Field(name: ":scheme", value: "https"),
                  HTTP2Field(name: ":authority", value: request.authority),
                  HTTP2Field(name: ":path", value: request.target)]
        for (name, value) in request.fields {
            let lowercased = name.lowercased()
            guard !Self.connectionSpecific.contains(lowercased) else { continue }
            if lowercased == "te", value.trimmingCharacters(in: .whitespaces).lowercased() != "trailers" { continue }
            fields.append(HTTP2Field(name: lowercased, value: value))
        }
        if !body.isEmpty || HTTP1RequestEncoder.methodsExpectingBody.contains(method) {
            fields.append(HTTP2Field(name: "content-length", value: String(body.count)))
        }
    }
}
