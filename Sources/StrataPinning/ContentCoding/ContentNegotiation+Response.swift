import Foundation
import Strata

extension ContentNegotiation {
    /// The head and body the consumer of a streamed response gets: decoded as it is read when
    /// the response is in an offered coding (``coding(of:)``), untouched otherwise.
    ///
    /// - Parameter maxDecodedBytes: The absolute limit on decoded bytes and its setting, or nil.
    func decoded(
        _ head: HTTPResponseHead, _ body: HTTPBody, decoding: ContentDecoding,
        maxDecodedBytes: (limit: Int64, setting: String)?
    ) -> (HTTPResponseHead, HTTPBody) {
        guard let coding = coding(of: head) else { return (head, body) }
        var decodedHead = head
        decodedHead.headers = Self.decodedHeaders(head.headers)
        guard hasBody(statusCode: head.statusCode) else { return (decodedHead, body) }
        let guardrail = ExpansionGuard(coding: coding, maxDecodedBytes: maxDecodedBytes, decoding: decoding)
        return (
            decodedHead,
            HTTPBody(
                DecodingBody(coded: body, guardrail: guardrail, method: request.method, url: request.url),
                length: nil)
        )
    }

    /// A buffered response as the caller gets it: its body decoded, in pieces of at most 64 KiB
    /// each counted against `maxBytes` and the expansion ratio, when it is in an offered coding;
    /// untouched otherwise.
    ///
    /// - Throws: `TransportError` of kind `invalidResponse` for a corrupt or truncated body or a
    ///   limit passed.
    func decoded(
        _ response: HTTPResponse, decoding: ContentDecoding,
        maxBytes: (limit: Int, setting: String)
    ) async throws -> HTTPResponse {
        guard coding(of: response.head) != nil else { return response }
        let (head, body) = decoded(
            response.head, HTTPBody(response.body), decoding: decoding,
            maxDecodedBytes: (Int64(maxBytes.limit), maxBytes.setting))
        var decodedResponse = response
        decodedResponse.headers = head.headers
        decodedResponse.body = try await collect(body, maxBytes: maxBytes)
        return decodedResponse
    }

    /// Reads a response body whole within `maxBytes` (a `ResponseBodyLimit` for one call).
    ///
    /// - Throws: `TransportError` of kind `invalidResponse` naming the limit when the body is
    ///   larger, or what reading it throws.
    func collect(_ body: HTTPBody, maxBytes: (limit: Int, setting: String)) async throws -> Data {
        do {
            return try await body.collect(upTo: maxBytes.limit)
        } catch HTTPBodyError.tooLarge {
            throw TransportError(
                .invalidResponse, method: request.method, url: request.url,
                message: "the response body exceeds the \(maxBytes.limit)-byte limit (\(maxBytes.setting))")
        }
    }
}
