#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension HTTPRequest {
    /// Creates a request from a Foundation `URLRequest`: its method (`GET` when it has none),
    /// URL, header fields and body.
    ///
    /// An `httpBody` becomes a replayable body; an `httpBodyStream` becomes a single-pass body
    /// (never resent), whose length is the request's `Content-Length` when it has one.
    /// `timeoutInterval` and `cachePolicy` are not carried: give a ``RequestDeadline`` (an
    /// endpoint's `timeout`) or the terminal's timeout instead.
    ///
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/invalidRequest`` when the request
    ///   has no URL, or its URL is not an absolute `http` or `https` URL.
    public init(_ request: URLRequest) throws {
        guard let url = request.url else {
            throw TransportError(
                .invalidRequest, method: HTTPMethod(request),
                message: "the URLRequest has no URL; give it an absolute http or https URL")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw TransportError(
                .invalidRequest, method: HTTPMethod(request), url: url,
                message: "the URL is not an absolute http or https URL")
        }
        let headers = HTTPHeaders(request)
        var body: HTTPBody?
        if let data = request.httpBody {
            body = HTTPBody(data)
        } else if let stream = request.httpBodyStream {
            let length = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            body = HTTPBody(InputStreamChunks(stream), length: length)
        }
        self.init(method: HTTPMethod(request), url: url, headers: headers, body: body)
    }

    /// The request as a Foundation `URLRequest`, for APIs that need one.
    ///
    /// A body in memory becomes `httpBody` and a file body an `httpBodyStream` reading the file.
    /// A single-pass stream cannot be handed to Foundation without reading it, so it is left out:
    /// send such a request through a Strata transport, which streams it.
    public var urlRequest: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        for field in headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        switch body?.source {
        case .bytes(let bytes)?: request.httpBody = Data(bytes)
        case .file(let file)?: request.httpBodyStream = InputStream(fileAtPath: file.path)
        case .singlePass?, nil: break
        }
        return request
    }
}
