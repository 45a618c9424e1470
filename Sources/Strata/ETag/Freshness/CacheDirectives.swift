/// The `Cache-Control` directives (RFC 9111 §5.2, RFC 5861) a private cache acts on, parsed from
/// a request's or a response's fields in one pass over their bytes.
///
/// Parsing follows RFC 9111's advice for bad input: a directive's first occurrence wins; a
/// `max-age` whose argument is not a number counts as `max-age=0` (§4.2.1: invalid freshness
/// information is stale); a number past 2³¹ is 2³¹ (§1.2.2); arguments may be quoted (§5.2).
/// `s-maxage` and `proxy-revalidate` are parsed for a shared store (§3.5, §4.2.1, §5.2.2.8,
/// §5.2.2.10); a private one ignores them.
struct CacheDirectives: Hashable, Sendable {
    /// `max-age=N`: fresh for N seconds (response), or no older than N seconds (request).
    var maxAge: Int?
    /// `s-maxage=N` (§5.2.2.10): a shared store's lifetime, which also allows it to reuse an
    /// authorized response (§3.5) and forbids it to serve the response stale; a private store
    /// ignores it. An invalid argument counts as 0, as for `max-age`.
    var sharedMaxAge: Int?
    /// Whether `s-maxage` is present.
    var hasSharedMaxAge: Bool { sharedMaxAge != nil }
    /// `proxy-revalidate` (§5.2.2.8): `must-revalidate` for a shared store only.
    var proxyRevalidate = false
    /// `no-cache`, qualified or not: never reuse without revalidating (§5.2.2.4; the qualified
    /// form is treated as unqualified, which the RFC allows).
    var noCache = false
    /// `no-store`.
    var noStore = false
    /// `must-revalidate`: once stale, never served without revalidating (§5.2.2.2).
    var mustRevalidate = false
    /// `public` (§5.2.2.9).
    var isPublic = false
    /// `private`, qualified or not (§5.2.2.7): a private cache may store it, a shared one not.
    var isPrivate = false
    /// `max-stale[=N]` on a request: `.max` when it has no argument (any staleness).
    var maxStale: Int?
    /// `min-fresh=N` on a request.
    var minFresh: Int?
    /// `only-if-cached` on a request (§5.2.1.7).
    var onlyIfCached = false
    /// `stale-while-revalidate=N` (RFC 5861 §3).
    var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861 §4), on a response or a request.
    var staleIfError: Int?

    /// The largest delta-seconds kept (RFC 9111 §1.2.2: 2³¹).
    static let maxDeltaSeconds = 2_147_483_648

    /// No directive at all.
    static let none = CacheDirectives()

    /// The directives of every `Cache-Control` field of `headers`.
    init(_ headers: HTTPHeaders) {
        for field in headers where HTTPHeaders.equal(field.name, "Cache-Control") {
            parse(field.value)
        }
    }

    private init() {}

    /// Parses one field value: comma-separated `name[=token|"quoted"]` elements, over the
    /// value's UTF-8 in place (no copy: this runs on every request a stored entry answers).
    private mutating func parse(_ value: String) {
        var value = value
        value.withUTF8 { parse(bytes: $0) }
    }

    private mutating func parse(bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            // Name: up to '=', ',' or whitespace.
            while index < bytes.count, Self.isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ","),
                !Self.isSpace(bytes[index])
            { index += 1 }
            let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            var argument: UnsafeBufferPointer<UInt8>?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    // A quoted string may hold commas (`no-cache="a, b"`); a backslash escapes.
                    index += 1
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    argument = UnsafeBufferPointer(rebasing: bytes[start..<min(index, bytes.count)])
                    index += 1
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: ","), !Self.isSpace(bytes[index]) { index += 1 }
                    argument = UnsafeBufferPointer(rebasing: bytes[start..<index])
                }
            }
            // Anything else up to the next comma is not part of a valid element; skip it.
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            if !name.isEmpty { apply(name, argument) }
        }
    }

    private mutating func apply(_ name: UnsafeBufferPointer<UInt8>, _ argument: UnsafeBufferPointer<UInt8>?) {
        if Self.matches(name, "max-age") {
            // Invalid freshness information is stale (§4.2.1).
            if maxAge == nil { maxAge = argument.flatMap(Self.deltaSeconds) ?? 0 }
        } else if Self.matches(name, "s-maxage") {
            if sharedMaxAge == nil { sharedMaxAge = argument.flatMap(Self.deltaSeconds) ?? 0 }
        } else if Self.matches(name, "proxy-revalidate") {
            proxyRevalidate = true
        } else if Self.matches(name, "no-cache") {
            noCache = true
        } else if Self.matches(name, "no-store") {
            noStore = true
        } else if Self.matches(name, "must-revalidate") {
            mustRevalidate = true
        } else if Self.matches(name, "public") {
            isPublic = true
        } else if Self.matches(name, "private") {
            isPrivate = true
        } else if Self.matches(name, "max-stale") {
            // No argument: any staleness (§5.2.1.2); a bad one is ignored.
            if maxStale == nil { maxStale = argument.map(Self.deltaSeconds) ?? Self.maxDeltaSeconds }
        } else if Self.matches(name, "min-fresh") {
            if minFresh == nil { minFresh = argument.flatMap(Self.deltaSeconds) }
        } else if Self.matches(name, "only-if-cached") {
            onlyIfCached = true
        } else if Self.matches(name, "stale-while-revalidate") {
            if staleWhileRevalidate == nil { staleWhileRevalidate = argument.flatMap(Self.deltaSeconds) }
        } else if Self.matches(name, "stale-if-error") {
            if staleIfError == nil { staleIfError = argument.flatMap(Self.deltaSeconds) }
        }
    }

    /// A delta-seconds argument (RFC 9111 §1.2.2): digits only, capped at 2³¹.
    static func deltaSeconds(_ argument: some Collection<UInt8>) -> Int? {
        guard !argument.isEmpty else { return nil }
        var value = 0
        for byte in argument {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), maxDeltaSeconds)
        }
        return value
    }

    /// A delta-seconds field value, such as `Age`'s; `nil` when absent or invalid.
    static func deltaSeconds(_ value: String?) -> Int? {
        guard let value else { return nil }
        return deltaSeconds(ArraySlice(value.utf8).trimmingSpaces)
    }

    /// ASCII case-insensitive comparison of a directive name with a lower-case literal.
    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard name.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            zip(name, expected).allSatisfy { ((0x41...0x5A).contains($0) ? $0 | 0x20 : $0) == $1 }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}

extension ArraySlice<UInt8> {
    /// The slice without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: ArraySlice<UInt8> {
        var slice = self
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
