import Foundation
import Strata

/// What a request head needs from a URL (the HTTP/1.1 request line and `Host`, the HTTP/2
/// `:scheme`, `:authority` and `:path`): scheme, host and path as written
/// (percent-encoded), port, query. A URL of the common shape is split by one scan
/// (``SimpleURL``); any other by `URLComponents`, which gives the same parts at many times
/// the cost (a full parse and an IDNA pass over the host).
struct RequestTarget {
    var scheme: String
    var host: String
    var port: Int?
    var path: Substring
    var query: Substring?

    init?(_ url: URL) {
        if let simple = SimpleURL(url) {
            scheme = String(simple.scheme)
            host = String(simple.host)
            port = simple.port
            path = simple.path
            query = simple.query
            return
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.percentEncodedHost
        else { return nil }
        scheme = components.scheme ?? ""
        self.host = host
        port = components.port
        path = Substring(components.percentEncodedPath)
        query = components.percentEncodedQuery.map { Substring($0) }
    }
}
