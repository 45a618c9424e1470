#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// Turns an endpoint and an environment into an ``HTTPRequest``: URL, method, headers and body.
/// Authorization is added by ``HTTPNetworkService``, which owns the token.
struct RequestFactory {
    let encoder: JSONEncoder

    func makeRequest(
        for endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol
    ) throws(NetworkError) -> HTTPRequest {
        var request = HTTPRequest(method: endpoint.method, url: try url(for: endpoint, base: environment.baseURL))
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if let body = endpoint.body {
            let (data, contentType) = try encode(body)
            request.body = HTTPBody(data)
            headers["Content-Type"] = contentType
        }
        for (name, value) in environment.headers.sorted(by: { $0.key < $1.key }) { headers[name] = value }
        for (name, value) in endpoint.headers.sorted(by: { $0.key < $1.key }) { headers[name] = value }
        do { try headers.validate() } catch { throw .invalidHeader(error) }
        request.headers = headers
        return request
    }

    func url(for endpoint: some EndpointProtocol, base: URL) throws(NetworkError) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw .invalidURL("the base URL \(base.absoluteString.debugDescription) must be an absolute http or https URL with a host")
        }
        let path = endpoint.path
        if let bad = path.first(where: { $0 == "?" || $0 == "#" }) {
            throw .invalidURL(
                "the endpoint path \(path.debugDescription) contains \"\(bad)\"; "
                    + "put query parameters in the endpoint's `query` instead")
        }
        components.percentEncodedPath = Self.join(components.percentEncodedPath, PercentEncoding.path(path))
        if let items = endpoint.query, !items.isEmpty {
            let encoded = PercentEncoding.query(items.map { ($0.name, $0.value) })
            let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
            components.percentEncodedQuery = existing.map { $0 + "&" + encoded } ?? encoded
        }
        guard let url = components.url else {
            throw .invalidURL("\(base.absoluteString) + \(path.debugDescription) does not form a URL")
        }
        return url
    }

    /// Joins two encoded paths with exactly one slash, never losing or doubling one.
    /// A leading slash is always kept so `https://host` + `users` is `https://host/users`.
    static func join(_ base: String, _ path: String) -> String {
        let head = base.hasSuffix("/") ? String(base.dropLast()) : base
        let tail = path.drop { $0 == "/" }
        if tail.isEmpty { return head.isEmpty ? "/" : (path.isEmpty ? base : head + "/") }
        return head + "/" + tail
    }

    private func encode(_ body: RequestBody) throws(NetworkError) -> (Data, String) {
        switch body {
        case .json(let value):
            do { return (try encoder.encode(value), "application/json") } catch { throw .encoding(error) }
        case .data(let data, let contentType):
            return (data, contentType)
        case .form(let items):
            let text = PercentEncoding.query(items.map { ($0.name, $0.value) })
            return (Data(text.utf8), "application/x-www-form-urlencoded")
        }
    }
}
