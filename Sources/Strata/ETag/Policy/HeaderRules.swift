/// Header facts the ETag policy needs, as pure functions over ``HTTPHeaders``.
///
/// They run several times per request, so each returns at once when the field it parses is
/// absent (as `Cache-Control` and `Vary` usually are) and compares names without lower-casing.
enum HeaderRules {
    /// The lower-cased directive names of every `Cache-Control` field (RFC 9111 §5.2), arguments
    /// dropped: `max-age=60, No-Store` gives `["max-age", "no-store"]`.
    static func cacheControlDirectives(in headers: HTTPHeaders) -> Set<String> {
        Set(
            listElements(headers.values(for: "Cache-Control")).map { element in
                String(element.prefix { $0 != "=" }).trimmingASCIIWhitespace().lowercased()
            })
    }

    /// Whether `Cache-Control: no-store` is present (RFC 9111 §5.2.1.5, §5.2.2.5): an element
    /// of a `Cache-Control` list whose name, before any `=`, is `no-store` in any case.
    static func forbidsStorage(_ headers: HTTPHeaders) -> Bool {
        for field in headers where HTTPHeaders.equal(field.name, "Cache-Control") {
            var value = field.value
            // Printable ASCII (every real field): the elements are compared in place, as
            // ``cacheControlDirectives(in:)`` would lower-case and compare them, with no sets
            // or strings built; this runs for every response stored.
            let found = value.withUTF8 { bytes -> Bool? in
                guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x09 }) else { return nil }
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                    var nameEnd = start
                    while nameEnd < end, bytes[nameEnd] != UInt8(ascii: "=") { nameEnd += 1 }
                    if asciiTrimmed(
                        UnsafeBufferPointer(rebasing: bytes[start..<nameEnd]),
                        equalsLowercased: "no-store")
                    {
                        return true
                    }
                    start = end + 1
                }
                return false
            }
            switch found {
            case true?: return true
            case false?: continue
            case nil:
                if cacheControlDirectives(in: HTTPHeaders([(field.name, field.value)])).contains("no-store") { return true }
            }
        }
        return false
    }

    /// Whether the `Content-Type` is `text/event-stream` (parameters and case ignored): a
    /// server-sent event stream, never stored.
    static func isEventStream(_ headers: HTTPHeaders) -> Bool {
        guard var type = headers["Content-Type"] else { return false }
        // ASCII (every real media type): compared in place, without Foundation's Unicode
        // case-insensitive comparison, which cost a third of a stored 200's time in this layer.
        let ascii = type.withUTF8 { bytes -> Bool? in
            guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x09 }) else { return nil }
            let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            return asciiTrimmed(UnsafeBufferPointer(rebasing: bytes[0..<end]), equalsLowercased: "text/event-stream")
        }
        if let ascii { return ascii }
        let mediaType = String(type.prefix { $0 != ";" }).trimmingASCIIWhitespace()
        return mediaType.caseInsensitiveCompare("text/event-stream") == .orderedSame
    }

    /// Whether `bytes`, without leading and trailing spaces and tabs, equal the lower-case
    /// ASCII `literal` ASCII-case-insensitively.
    private static func asciiTrimmed(_ bytes: UnsafeBufferPointer<UInt8>, equalsLowercased literal: StaticString) -> Bool {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard end - start == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for offset in 0..<expected.count
            where HTTPHeaders.asciiLowercased(bytes[start + offset]) != expected[offset] { return false }
            return true
        }
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
            })
        else { return names }
        names.append("accept-encoding")
        return names
    }

    /// Hop-by-hop fields (RFC 9110 §7.6.1) that describe one connection, not the representation.
    /// With the fields `Connection` names, they are neither stored nor freshened.
    private static let hopByHopNames = [
        "Connection", "Proxy-Connection", "Keep-Alive", "TE", "Transfer-Encoding",
        "Upgrade", "Trailer", "Proxy-Authenticate", "Proxy-Authorization",
    ]

    /// Fields never written to a store besides the hop-by-hop ones: `Set-Cookie`, which is a
    /// credential for the client's cookie store, not part of the representation. A deliberate
    /// deviation from RFC 9111 §3.1 (which stores every other field), as Chrome's cache does:
    /// replayed, a cookie would undo a sign-out, and keeping cookies off disk is the point.
    private static let credentialNames = ["Set-Cookie", "Set-Cookie2"]

    /// The field names the `Connection` fields of `headers` list (each one hop-by-hop).
    static func connectionNames(in headers: HTTPHeaders) -> [String] {
        var first: String?
        var count = 0
        for field in headers where HTTPHeaders.equal(field.name, "Connection") {
            if first == nil { first = field.value }
            count += 1
        }
        guard let value = first else { return [] }
        // Most responses say just `keep-alive` or `close`: one element, nothing to split or trim,
        // and no array to build for either (`Keep-Alive` is left out whatever `Connection` says).
        if count == 1, !value.isEmpty, !containsListSeparator(value) {
            if isAlwaysUnstorable(value) { return [] }
            return HTTPHeaders.equal(value, "close") ? closeOnly : [value]
        }
        return listElements(headers.values(for: "Connection"))
    }

    private static let closeOnly = ["close"]

    /// Whether `value` holds a comma, space or tab, read in place when its UTF-8 is contiguous
    /// (a walk of `String.UTF8View` cost about 300 instructions for a `keep-alive`).
    static func containsListSeparator(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable(containsListSeparator(in:)) ?? containsListSeparator(in: value.utf8)
    }

    /// Whether `bytes` hold a comma, space or tab.
    static func containsListSeparator(in bytes: some Collection<UInt8>) -> Bool {
        bytes.contains { $0 == UInt8(ascii: ",") || $0 == 0x20 || $0 == 0x09 }
    }

    /// Whether a field named `name` is never written to a store: a hop-by-hop field, one that
    /// `connectionNames` (from ``connectionNames(in:)``) lists, or `Set-Cookie`.
    static func isUnstorable(_ name: String, connectionNames: [String]) -> Bool {
        isAlwaysUnstorable(name) || connectionNames.contains { HTTPHeaders.equal($0, name) }
    }

    /// Whether `name` is one of ``unstorableNames``: only the names of its length are compared
    /// (every field of every stored response is checked, and most lengths have none), in one
    /// read of `name`'s bytes in place against the names' lower-cased bytes.
    static func isAlwaysUnstorable(_ name: String) -> Bool {
        let length = name.utf8.count
        guard length < unstorableNamesByLength.count, !unstorableNamesByLength[length].isEmpty else { return false }
        return name.utf8.withContiguousStorageIfAvailable(isAlwaysUnstorable(bytes:))
            ?? isAlwaysUnstorable(bytes: name.utf8)
    }

    /// Whether `bytes`, a field name, spell one of ``unstorableNames`` in any ASCII case.
    static func isAlwaysUnstorable(bytes: some Collection<UInt8>) -> Bool {
        let count = bytes.count
        guard count < unstorableNamesByLength.count else { return false }
        return unstorableNamesByLength[count].contains { lowercased in
            zip(bytes, lowercased).allSatisfy { HTTPHeaders.asciiLowercased($0) == $1 }
        }
    }

    private static let unstorableNames = hopByHopNames + credentialNames

    /// ``unstorableNames``' lower-cased UTF-8, indexed by their length in bytes.
    private static let unstorableNamesByLength: [[[UInt8]]] = {
        let longest = unstorableNames.map(\.utf8.count).max() ?? 0
        return (0...longest).map { length in
            unstorableNames.filter { $0.utf8.count == length }.map { Array($0.lowercased().utf8) }
        }
    }()

    /// The non-empty, trimmed elements of comma-separated list fields (RFC 9110 §5.6.1).
    static func listElements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { String($0).trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
    }
}
