#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A transport that answers every request with the same response, for tests of code that makes
/// one kind of request.
///
/// ```swift
/// let service = HTTPNetworkService(transport: CannedResponseTransport(string: #"{"id": 1}"#))
/// ```
/// Use ``CannedRoutesTransport`` when different requests need different answers, or when the test
/// must see what was sent.
public struct CannedResponseTransport: Transport {
    /// The response every request receives.
    package let response: CannedResponse

    /// Creates a transport that answers with a UTF-8 text body.
    public init(string: String, statusCode: Int = 200, headers: HTTPHeaders = [:]) {
        self.init(response: CannedResponse(string: string, statusCode: statusCode, headers: headers))
    }

    /// Creates a transport that answers with `response`.
    public init(response: CannedResponse) {
        self.response = response
    }

    /// Returns the canned response, with the request's URL.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        return response.httpResponse(for: request.url)
    }
}
