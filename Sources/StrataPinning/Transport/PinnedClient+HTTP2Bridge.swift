import Foundation
import Strata

// HTTP/2 for `stream` and for file or stream request bodies, buffered until HTTP/2 streams its
// bodies itself (windows that follow what `consume` read): these two functions are the whole
// bridge, and what HTTP/2 streaming replaces.
extension PinnedClient {
    /// Hands an HTTP/2 response, read whole, to `consume`: the place where HTTP/2 response
    /// streaming (windows that follow what `consume` read) replaces this buffered bridge.
    func streamOverHTTP2<Result: Sendable>(_ response: HTTPResponse,
                                           _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result) async throws -> Result {
        try await consume(response.head, HTTPBody(response.body))
    }

    /// The request for an HTTP/2 stream: a file or stream body is collected first, within
    /// ``HTTP1RequestEncoder/maxBodyBytes`` (HTTP/2 request bodies do not stream yet).
    func http2Request(for exchange: Exchange) async throws -> HTTP2Request {
        guard exchange.encoded.streamedBody != nil else { return HTTP2Request(exchange.encoded) }
        do {
            let bytes = try await HTTP1RequestEncoder.bodyBytes(of: exchange.request)
            return HTTP2Request(try HTTP1RequestEncoder.encode(exchange.request, body: bytes))
        } catch {
            throw TransportError(.invalidRequest, method: exchange.request.method, url: exchange.request.url,
                                 message: error.description, underlying: error)
        }
    }
}
