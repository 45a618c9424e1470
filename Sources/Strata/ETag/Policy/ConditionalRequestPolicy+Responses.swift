#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension ConditionalRequestPolicy {
    /// Whether to store a response, and the entry if so.
    enum StoreDecision: Hashable, Sendable {
        case store(ETagCacheEntry)
        case doNotStore(ETagEvent.NotStoredReason)
    }

    /// `request` with the validators of `entry` added: `If-None-Match` from its ETag, and
    /// `If-Modified-Since` from its Last-Modified only when it has no ETag (RFC 9110 §13.1.3:
    /// `If-None-Match` takes precedence, so sending both adds nothing). `nil` when the entry
    /// has no validator.
    func conditionalRequest(_ request: HTTPRequest, validating entry: ETagCacheEntry) -> HTTPRequest? {
        var conditional = request
        if let etag = entry.etag {
            conditional.headers["If-None-Match"] = etag
        } else if let lastModified = entry.lastModified {
            conditional.headers["If-Modified-Since"] = lastModified
        } else {
            return nil
        }
        return conditional
    }

    /// Whether `response` to `request` is stored, and the entry if so: a `GET` 200 without
    /// `no-store` or `Vary: *`, not a `text/event-stream`, that has a validator, a freshness lifetime of its own (`max-age`,
    /// `Expires`), or an endpoint that reuses it for a time. The entry records `times`, and a
    /// `Date` of `times.responseTime` when the response had none (RFC 9110 §6.6.1), so that its
    /// age can be computed later.
    func storeDecision(
        for response: HTTPResponse, to request: HTTPRequest, times: ExchangeTimes,
        rule: EndpointCachePolicy = .standard
    ) -> StoreDecision {
        guard request.method == .get else { return .doNotStore(.head) }
        guard response.statusCode == 200 else { return .doNotStore(.status) }
        guard !HeaderRules.forbidsStorage(response.headers) else { return .doNotStore(.responseNoStore) }
        guard !HeaderRules.isEventStream(response.headers) else { return .doNotStore(.eventStream) }
        let varyNames = HeaderRules.selectingNames(in: response.headers)
        guard !varyNames.contains("*") else { return .doNotStore(.varyStar) }
        guard
            response.headers["ETag"] != nil || response.headers["Last-Modified"] != nil
                || Self.hasFreshnessLifetime(response.headers) || rule.reusesForATime
        else {
            return .doNotStore(.noValidator)
        }
        var stored = response
        stored.headers = Self.storable(response.headers)
        Self.addDateIfMissing(to: &stored.headers, receivedAt: times.responseTime)
        return .store(
            ETagCacheEntry(
                response: stored,
                varyingRequestHeaders: varyingHeaders(of: request, names: varyNames),
                exchangeTimes: times))
    }

    /// Whether the headers give an explicit freshness lifetime: `max-age` or `Expires`.
    private static func hasFreshnessLifetime(_ headers: HTTPHeaders) -> Bool {
        headers.contains("Expires") || (headers.contains("Cache-Control") && CacheDirectives(headers).maxAge != nil)
    }

    /// Adds `Date: <receivedAt>` to headers that have no `Date`: a recipient with a clock
    /// dates what it caches (RFC 9110 §6.6.1), and the age calculation reads it.
    static func addDateIfMissing(to headers: inout HTTPHeaders, receivedAt: Date) {
        guard !headers.contains("Date") else { return }
        headers.add(name: "Date", value: HTTPDate.format(receivedAt))
    }

    /// The stored `entry` as the response to `request`, with `Age: age` (RFC 9111 §4.2.3
    /// requires it on a response served from a cache) and the body (none for `HEAD`).
    func storedResponse(
        _ entry: ETagCacheEntry, for request: HTTPRequest, age: Int,
        source: HTTPResponse.Source
    ) -> HTTPResponse {
        var headers = entry.headers
        headers["Age"] = String(age)
        return HTTPResponse(
            statusCode: entry.statusCode, headers: headers,
            body: request.method == .head ? Data() : entry.body,
            url: Self.responseURL(of: entry, for: request), source: source)
    }

    /// The URL a stored response answers with: the request's own when the entry was stored for
    /// it (a persisted entry holds it with secret query values redacted), else the entry's (the
    /// URL a redirect led to).
    private static func responseURL(of entry: ETagCacheEntry, for request: HTTPRequest) -> URL {
        guard let stored = entry.url, stored != request.url,
            stored != ETagEntryFileFormat.persistedURL(request.url)
        else { return request.url }
        return stored
    }

    /// `entry` freshened by a 304 (RFC 9111 §4.3.4), or `nil` when the 304 does not confirm it.
    ///
    /// The 304 confirms the entry when its ETag weakly matches the entry's; when it has no ETag,
    /// unless its Last-Modified differs from the entry's, because it answers the single
    /// validator that was sent. Freshening (RFC 9111 §3.2) replaces every stored field the
    /// 304 carries, except `Content-Length` (a 304's describes no body) and fields never stored.
    /// The freshened entry records `times`, the 304's exchange, the 304's `Date` (or
    /// `times.responseTime` when it has none) and the 304's `Age` (none when it has none, not the
    /// stored one): its age starts again from that exchange.
    func freshened(_ entry: ETagCacheEntry, with notModified: HTTPResponse, times: ExchangeTimes) -> ETagCacheEntry? {
        guard var fresh = freshenedHeaders(entry, with: notModified) else { return nil }
        fresh.exchangeTimes = times
        if !notModified.headers.contains("Age"), fresh.headers.contains("Age") {
            fresh.headers.remove(name: "Age")
        }
        if !notModified.headers.contains("Date") {
            fresh.headers["Date"] = HTTPDate.format(times.responseTime)
        }
        return fresh
    }

    /// `entry` with the 304's fields merged, or `nil` when the 304 does not confirm it.
    func freshenedHeaders(_ entry: ETagCacheEntry, with notModified: HTTPResponse) -> ETagCacheEntry? {
        if let received = notModified.headers["ETag"].flatMap(EntityTag.init) {
            guard let stored = entry.etag.flatMap(EntityTag.init), stored.weaklyMatches(received) else { return nil }
        } else if let received = notModified.headers["Last-Modified"] {
            if let stored = entry.lastModified,
                stored.trimmingASCIIWhitespace() != received.trimmingASCIIWhitespace()
            {
                return nil
            }
        }
        // Header lists are short: linear scans with an ASCII case-insensitive compare beat
        // building sets of lower-cased names on every 304.
        let connectionNames = HeaderRules.connectionNames(in: notModified.headers)
        let isDropped = { (name: String) in
            HeaderRules.isUnstorable(name, connectionNames: connectionNames) || HTTPHeaders.equal(name, "Content-Length")
        }
        // The usual 304 only repeats stored fields: seen in place, without building the updates.
        if Self.repeatsStoredFields(notModified.headers, droppingFieldsWhere: isDropped, of: entry) { return entry }
        let updates = notModified.headers.removingFields(where: isDropped)
        func isUpdated(_ name: String) -> Bool { updates.contains { HTTPHeaders.equal($0.name, name) } }
        // Replaced fields keep their stored position; fields the entry lacked go at the end.
        var merged: [(String, String)] = []
        var written: [String] = []
        for field in entry.headers {
            guard isUpdated(field.name) else {
                merged.append((field.name, field.value))
                continue
            }
            guard !written.contains(where: { HTTPHeaders.equal($0, field.name) }) else { continue }
            written.append(field.name)
            merged += updates.filter { HTTPHeaders.equal($0.name, field.name) }.map { ($0.name, $0.value) }
        }
        merged += updates.filter { !entry.headers.contains($0.name) }.map { ($0.name, $0.value) }
        var fresh = entry
        fresh.headers = HTTPHeaders(merged)
        return fresh
    }

    /// Whether the fields of `headers` that `isDropped` does not pick (the updates) only repeat
    /// fields `entry` holds once each, spelled alike with the same values (the usual 304, which
    /// resends the `ETag`), or are none: merging them would change nothing. `isDropped` must
    /// pick names case-insensitively.
    private static func repeatsStoredFields(
        _ headers: HTTPHeaders, droppingFieldsWhere isDropped: (String) -> Bool,
        of entry: ETagCacheEntry
    ) -> Bool {
        for update in headers where !isDropped(update.name) {
            var namesakes = 0, matches = 0
            // A namesake of a kept field is kept too: `isDropped` ignores case.
            for other in headers where HTTPHeaders.equal(other.name, update.name) { namesakes += 1 }
            for field in entry.headers where HTTPHeaders.equal(field.name, update.name) {
                guard field.name == update.name, field.value == update.value else { return false }
                matches += 1
            }
            guard namesakes == 1, matches == 1 else { return false }
        }
        return true
    }

    /// Whether a freshened entry must be written back: its headers changed in a field other
    /// than `Date`, `Age` or `Expires`, or (see `timesMatter`) its age does. `Date`, `Age` and
    /// `Expires` change on nearly every response; when the entry is only a validator (no
    /// freshness lifetime, no stale-if-error window) they matter to nobody, and skipping them
    /// spares a store a full rewrite of the body on every 304 (about 6 ms per MiB for
    /// ``FileETagStore``).
    ///
    /// - Parameter timesMatter: Whether the entry's age is used: it has (or may have) a
    ///   freshness lifetime or a stale-if-error window.
    func needsStoreUpdate(from stored: ETagCacheEntry, to fresh: ETagCacheEntry, timesMatter: Bool) -> Bool {
        if timesMatter || stored.exchangeTimes == nil { return true }
        func lasting(_ headers: HTTPHeaders) -> HTTPHeaders {
            headers.removingFields { name in Self.volatileFieldNames.contains { HTTPHeaders.equal($0, name) } }
        }
        guard stored.statusCode == fresh.statusCode, stored.varyingRequestHeaders == fresh.varyingRequestHeaders,
            Self.sameBytes(stored.body, fresh.body)
        else { return true }
        guard stored.headers != fresh.headers else { return false }
        return lasting(stored.headers) != lasting(fresh.headers)
    }

    private static let volatileFieldNames = ["Date", "Age", "Expires"]

    /// Whether two bodies hold the same bytes; a freshened entry shares its body's storage with
    /// the stored one, which is then not compared byte by byte (1 MiB would take tens of µs).
    private static func sameBytes(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in a.baseAddress == b.baseAddress || a.elementsEqual(b) }
        }
    }

    /// The response to `request` that a 304 confirmed `entry` for.
    func revalidatedResponse(_ entry: ETagCacheEntry, for request: HTTPRequest, url: URL?) -> HTTPResponse {
        HTTPResponse(
            statusCode: entry.statusCode, headers: entry.headers,
            body: request.method == .head ? Data() : entry.body,
            url: url ?? entry.url, source: .revalidated)
    }

    /// Whether a full `HEAD` response shows that `entry` is outdated (RFC 9111 §4.3.5): its
    /// ETag, or failing that its Last-Modified, differs from the entry's.
    func headResponse(_ response: HTTPResponse, outdates entry: ETagCacheEntry) -> Bool {
        guard response.statusCode == 200 else { return false }
        if let received = response.headers["ETag"].flatMap(EntityTag.init) {
            guard let stored = entry.etag.flatMap(EntityTag.init) else { return true }
            return !stored.weaklyMatches(received)
        }
        if let received = response.headers["Last-Modified"] { return received != entry.lastModified }
        return false
    }

    /// Whether an unsafe request's response invalidates stored entries: a non-error status
    /// (2xx or 3xx, RFC 9111 §4.4).
    func invalidates(_ response: HTTPResponse) -> Bool {
        (200..<400).contains(response.statusCode)
    }

    /// The URLs a successful unsafe request invalidates (RFC 9111 §4.4): its own, and the
    /// `Location` and `Content-Location` of the response when they are on the same origin.
    func invalidatedURLs(request: HTTPRequest, response: HTTPResponse) -> [URL] {
        let target = request.url
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name],
                let url = URL(string: value, relativeTo: response.url ?? target)?.absoluteURL,
                Self.sameOrigin(url, target),
                !urls.contains(where: { Self.normalized($0) == Self.normalized(url) })
            else { continue }
            urls.append(url)
        }
        return urls
    }

    /// Headers without the fields a store never keeps.
    static func storable(_ headers: HTTPHeaders) -> HTTPHeaders {
        let connectionNames = HeaderRules.connectionNames(in: headers)
        guard headers.contains(where: { HeaderRules.isUnstorable($0.name, connectionNames: connectionNames) }) else {
            return headers
        }
        return headers.removingFields { HeaderRules.isUnstorable($0, connectionNames: connectionNames) }
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && a.port == b.port
    }
}
