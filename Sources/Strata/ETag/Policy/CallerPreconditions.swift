import Foundation

/// The validators a caller put on its own `GET` or `HEAD`: `If-None-Match` (RFC 9110 §13.1.2)
/// and `If-Modified-Since` (§13.1.3), evaluated against the stored response that answers the
/// request (RFC 9111 §4.3.2) instead of being sent to the origin.
///
/// `If-Match`, `If-Unmodified-Since` and `If-Range` apply to the origin only (§4.3.2): a request
/// carrying one passes through the layer untouched, and never reaches this type.
struct CallerPreconditions: Sendable, Hashable {
    /// What `If-None-Match` lists.
    enum EntityTags: Sendable, Hashable {
        /// `*`: any current representation.
        case any
        /// The entity tags, compared weakly.
        case list([EntityTag])
    }

    /// The `If-None-Match` field lines combined, or `nil` when there is none.
    var ifNoneMatch: EntityTags?
    /// The `If-Modified-Since` values, one per field line, or `nil` when there is none.
    var ifModifiedSince: [String]?

    /// The caller's preconditions in `headers`, or `nil` when it set neither field (one pass
    /// over the fields, most of them told apart by their first byte: this runs on every request
    /// a stored response answers).
    init?(_ headers: HTTPHeaders) {
        var noneMatch: [String] = []
        var modifiedSince: [String] = []
        for field in headers {
            guard let first = field.name.utf8.first, first | 0x20 == UInt8(ascii: "i") else { continue }
            if HTTPHeaders.equal(field.name, "If-None-Match") {
                noneMatch.append(field.value)
            } else if HTTPHeaders.equal(field.name, "If-Modified-Since") {
                modifiedSince.append(field.value)
            }
        }
        guard !noneMatch.isEmpty || !modifiedSince.isEmpty else { return nil }
        ifNoneMatch = noneMatch.isEmpty ? nil : Self.entityTags(noneMatch)
        ifModifiedSince = modifiedSince.isEmpty ? nil : modifiedSince
    }

    /// Whether `headers` carry a validator of the caller's own: `If-None-Match` or
    /// `If-Modified-Since`.
    static func arePresent(in headers: HTTPHeaders) -> Bool {
        CallerPreconditions(headers) != nil
    }

    /// Whether the stored `entry` is, for the caller, "not modified": then the answer is a `304`,
    /// otherwise the stored response in full (RFC 9110 §13.2.2, as a cache evaluates it, RFC 9111
    /// §4.3.2). Never for a stored status other than 2xx (§13.2.1).
    ///
    /// - `If-None-Match` decides when present: `*` matches the stored response (it is a current
    ///   representation), a list matches when one tag weakly matches the stored `ETag` (§13.1.2;
    ///   a stored response without one matches no tag). `If-Modified-Since` is then ignored.
    /// - Otherwise `If-Modified-Since` (a `GET` or `HEAD`, one valid HTTP-date, else ignored,
    ///   §13.1.3) holds when the stored `Last-Modified` is no later than its date; a stored
    ///   response without a valid `Last-Modified` is dated by its `Date`, else by when it was
    ///   received (RFC 9111 §4.3.2).
    ///
    /// - Parameters:
    ///   - method: The request's method.
    ///   - now: The current time, for RFC 850 dates' two-digit years.
    func holdNotModified(for entry: ETagCacheEntry, method: HTTPMethod, now: Date) -> Bool {
        // RFC 9110 §13.2.1: preconditions are ignored when the response without them would not
        // be a 2xx (a stored 404 answers as a 404, never as a 304).
        guard (200..<300).contains(entry.statusCode) else { return false }
        if let ifNoneMatch {
            switch ifNoneMatch {
            case .any: return true
            case .list(let tags):
                guard let stored = entry.etag.flatMap(EntityTag.init) else { return false }
                return tags.contains { $0.weaklyMatches(stored) }
            }
        }
        guard method == .get || method == .head, let values = ifModifiedSince, values.count == 1,
            let since = HTTPDate.parseForFreshness(values[0], now: now)
        else { return false }
        guard let modified = Self.modificationDate(of: entry, now: now) else { return false }
        return modified <= since
    }

    /// When the stored response was last modified, as far as a cache can tell: its
    /// `Last-Modified`, else its `Date`, else when it was received.
    private static func modificationDate(of entry: ETagCacheEntry, now: Date) -> Date? {
        if let date = entry.lastModified.flatMap({ HTTPDate.parseForFreshness($0, now: now) }) { return date }
        if let date = entry.headers["Date"].flatMap({ HTTPDate.parseForFreshness($0, now: now) }) { return date }
        return entry.exchangeTimes?.responseTime
    }

    /// The members of `If-None-Match` field lines: `*`, or entity tags (a tag may hold a comma
    /// inside its quotes, so the list is split outside them).
    private static func entityTags(_ lines: [String]) -> EntityTags {
        var tags: [EntityTag] = []
        for line in lines {
            var member = ""
            var quoted = false
            for character in line + "," {
                if character == "\"" { quoted.toggle() }
                guard !quoted, character == "," else {
                    member.append(character)
                    continue
                }
                let trimmed = member.trimmingASCIIWhitespace()
                member = ""
                if trimmed == "*" { return .any }
                if let tag = EntityTag(trimmed) { tags.append(tag) }
            }
        }
        return .list(tags)
    }
}
