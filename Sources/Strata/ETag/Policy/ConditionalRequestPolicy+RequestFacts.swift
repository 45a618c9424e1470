#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension ConditionalRequestPolicy {
    /// The parts of a request the policy reads, taken from the `URLRequest` once per request.
    ///
    /// On Linux every `URLRequest` accessor goes through an `NSURLRequest` and costs hundreds of
    /// instructions (a header lookup lower-cases every field name); the policy asks for the
    /// method, the URL and the header fields many times per request.
    struct RequestFacts {
        var method: HTTPMethod
        var url: URL?
        /// The request's fields, sorted by name as ``HTTPHeaders`` reads a request.
        var headers: HTTPHeaders

        init(_ request: URLRequest) {
            method = HTTPMethod(request)
            url = request.url
            headers = HTTPHeaders(request)
        }
    }
}
