import Foundation
import Strata

/// How a resilience layer groups requests: each group has its own circuit, its own limit or its
/// own rate-limit window.
///
/// The default for every layer is ``origin``: a dependency is a scheme, host and port, so one
/// failing API opens its own circuit without stopping the calls to another.
/// ```swift
/// // One circuit per endpoint: /search failing does not stop /users on the same host.
/// .circuitBreaker(partition: .endpoint)
/// // One queue for the whole process, whatever the host.
/// .concurrencyLimit(maxInFlight: 64, partition: .global)
/// ```
public struct RequestPartition: Sendable {
    private let keyForRequest: @Sendable (HTTPRequest) -> String

    /// Creates a partition that groups requests by the key `key` returns: requests with equal
    /// keys share one group.
    ///
    /// - Parameter key: The group of a request. Called once per request, on its path: keep it
    ///   cheap, and never return a secret (the key appears in events and errors).
    public static func custom(_ key: @escaping @Sendable (HTTPRequest) -> String) -> RequestPartition {
        RequestPartition(keyForRequest: key)
    }

    /// One group per origin (RFC 6454): the URL's scheme, host and port, the port filled in
    /// from the scheme when the URL has none. `https://API.example.com/a` and
    /// `https://api.example.com:443/b` share one group.
    public static let origin = RequestPartition { origin(of: $0.url) }

    /// One group per endpoint: the origin and the path, without the query, so `/search?q=a` and
    /// `/search?q=b` share one group.
    public static let endpoint = RequestPartition { request in
        let path = request.url.path
        return origin(of: request.url) + (path.isEmpty ? "/" : path)
    }

    /// One group for every request.
    public static let global = RequestPartition { _ in "*" }

    /// The group of `request`.
    package func key(for request: HTTPRequest) -> String { keyForRequest(request) }

    /// `scheme://host:port`, lowercased, never carrying the URL's userinfo.
    package static func origin(of url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        let host = (url.host ?? "").lowercased()
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }
}
