/// Header facts the ETag policy needs, as pure functions over ``HTTPHeaders``.
enum HeaderRules {
    /// The lower-cased directive names of every `Cache-Control` field (RFC 9111 §5.2), arguments
    /// dropped: `max-age=60, No-Store` gives `["max-age", "no-store"]`.
    static func cacheControlDirectives(in headers: HTTPHeaders) -> Set<String> {
        Set(listElements(headers.values(for: "Cache-Control")).map { element in
            String(element.prefix { $0 != "=" }).trimmingASCIIWhitespace().lowercased()
        })
    }

    /// Whether `Cache-Control: no-store` is present (RFC 9111 §5.2.1.5, §5.2.2.5).
    static func forbidsStorage(_ headers: HTTPHeaders) -> Bool {
        cacheControlDirectives(in: headers).contains("no-store")
    }

    /// The lower-cased field names listed by `Vary` (RFC 9110 §12.5.5), in order, without
    /// repeats. `*` is returned as is.
    static func varyNames(in headers: HTTPHeaders) -> [String] {
        var seen = Set<String>()
        return listElements(headers.values(for: "Vary")).map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }

    /// Hop-by-hop fields (RFC 9110 §7.6.1) that describe one connection, not the representation,
    /// plus any field the `Connection` header names. They are neither stored nor freshened.
    static func hopByHopNames(in headers: HTTPHeaders) -> Set<String> {
        var names: Set<String> = ["connection", "proxy-connection", "keep-alive", "te", "transfer-encoding",
                                  "upgrade", "trailer", "proxy-authenticate", "proxy-authorization"]
        names.formUnion(listElements(headers.values(for: "Connection")).map { $0.lowercased() })
        return names
    }

    /// Fields never written to a store: hop-by-hop ones, and `Set-Cookie`, which is a credential
    /// for the client's cookie store, not part of the representation (RFC 9111 §3.1 lets a cache
    /// leave out such fields; keeping cookies off disk is the point).
    static func unstorableNames(in headers: HTTPHeaders) -> Set<String> {
        hopByHopNames(in: headers).union(["set-cookie", "set-cookie2"])
    }

    /// The non-empty, trimmed elements of comma-separated list fields (RFC 9110 §5.6.1).
    static func listElements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { String($0).trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
    }
}
