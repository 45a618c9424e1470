/// Header facts the ETag policy needs, as pure functions over ``HTTPHeaders``.
///
/// They run several times per request, so each returns at once when the field it parses is
/// absent (as `Cache-Control` and `Vary` usually are) and compares names without lower-casing.
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
        headers.contains("Cache-Control") && cacheControlDirectives(in: headers).contains("no-store")
    }

    /// Whether the `Content-Type` is `text/event-stream` (parameters and case ignored): a
    /// server-sent event stream, never stored.
    static func isEventStream(_ headers: HTTPHeaders) -> Bool {
        guard let type = headers["Content-Type"] else { return false }
        let mediaType = String(type.prefix { $0 != ";" }).trimmingASCIIWhitespace()
        return mediaType.caseInsensitiveCompare("text/event-stream") == .orderedSame
    }

    /// The lower-cased field names listed by `Vary` (RFC 9110 §12.5.5), in order, without
    /// repeats. `*` is returned as is.
    static func varyNames(in headers: HTTPHeaders) -> [String] {
        let values = headers.values(for: "Vary")
        guard !values.isEmpty else { return [] }
        var seen = Set<String>()
        return listElements(values).map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }

    /// The lower-cased names of the request fields a stored response is selected by: its
    /// `Vary`'s, plus `accept-encoding` when it has a `Content-Encoding` other than `identity`,
    /// as if the server had said `Vary: Accept-Encoding` (nginx's `gzip_vary` is off by
    /// default). A coded body was stored for a caller that asked for it and reads raw bytes; a
    /// caller that did not (whose terminal decodes) must not be served it.
    static func selectingNames(in headers: HTTPHeaders) -> [String] {
        var names = varyNames(in: headers)
        guard !names.contains("accept-encoding"), !names.contains("*"), headers.contains("Content-Encoding"),
              listElements(headers.values(for: "Content-Encoding")).contains(where: {
                  $0.caseInsensitiveCompare("identity") != .orderedSame
              }) else { return names }
        names.append("accept-encoding")
        return names
    }

    /// Hop-by-hop fields (RFC 9110 §7.6.1) that describe one connection, not the representation.
    /// With the fields `Connection` names, they are neither stored nor freshened.
    private static let hopByHopNames = ["Connection", "Proxy-Connection", "Keep-Alive", "TE", "Transfer-Encoding",
                                        "Upgrade", "Trailer", "Proxy-Authenticate", "Proxy-Authorization"]

    /// Fields never written to a store besides the hop-by-hop ones: `Set-Cookie`, which is a
    /// credential for the client's cookie store, not part of the representation (RFC 9111 §3.1
    /// lets a cache leave out such fields; keeping cookies off disk is the point).
    private static let credentialNames = ["Set-Cookie", "Set-Cookie2"]

    /// The field names the `Connection` fields of `headers` list (each one hop-by-hop).
    static func connectionNames(in headers: HTTPHeaders) -> [String] {
        let values = headers.values(for: "Connection")
        // Most responses say just `keep-alive` or `close`: one element, nothing to split or trim.
        if values.count == 1, let value = values.first,
           !value.isEmpty, !value.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == 0x20 || $0 == 0x09 }) {
            return values
        }
        return values.isEmpty ? [] : listElements(values)
    }

    /// Whether a field named `name` is never written to a store: a hop-by-hop field, one that
    /// `connectionNames` (from ``connectionNames(in:)``) lists, or `Set-Cookie`.
    static func isUnstorable(_ name: String, connectionNames: [String]) -> Bool {
        unstorableNames.contains { HTTPHeaders.equal($0, name) } || connectionNames.contains { HTTPHeaders.equal($0, name) }
    }

    private static let unstorableNames = hopByHopNames + credentialNames

    /// The non-empty, trimmed elements of comma-separated list fields (RFC 9110 §5.6.1).
    static func listElements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { String($0).trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
    }
}
