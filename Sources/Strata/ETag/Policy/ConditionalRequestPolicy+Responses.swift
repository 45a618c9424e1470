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
        // A request with a conditional field of its own never gets here (``plan(for:)`` passes
        // it through, or the transport sends the caller's validators untouched), so the field
        // is added, not looked for and replaced.
        if let etag = entry.etag {
            conditional.headers.add(name: "If-None-Match", value: etag)
        } else if let lastModified = entry.lastModified {
            conditional.headers.add(name: "If-Modified-Since", value: lastModified)
        } else {
            return nil
        }
        return conditional
    }

    /// Whether `response` to `request` is stored, and the entry if so: a `GET` response of a
    /// status ``mayStore(status:headers:sharedStorage:)`` allows, without `no-store` or
    /// `Vary: *`, not a `text/event-stream`, that has a validator, a freshness lifetime of its
    /// own (`max-age`, `Expires`; `s-maxage` in a shared store), or an endpoint that reuses it
    /// for a time. The entry records `times`, and a `Date` of `times.responseTime` when the
    /// response had none (RFC 9110 §6.6.1), so that its age can be computed later.
    ///
    /// - Parameter sharedStorage: Whether the store is shared (``ETagStoreProtocol/isSharedStorage``).
    func storeDecision(
        for response: HTTPResponse, to request: HTTPRequest, times: ExchangeTimes,
        rule: EndpointCachePolicy = .standard, sharedStorage: Bool = false
    ) -> StoreDecision {
        guard request.method == .get else { return .doNotStore(.head) }
        guard Self.mayStore(status: response.statusCode, headers: response.headers, sharedStorage: sharedStorage) else {
            return .doNotStore(.status)
        }
        guard !Self.mayHaveLostItsBody(response) else { return .doNotStore(.bodyMayBeIncomplete) }
        guard !HeaderRules.forbidsStorage(response.headers) else { return .doNotStore(.responseNoStore) }
        guard !HeaderRules.isEventStream(response.headers) else { return .doNotStore(.eventStream) }
        let varyNames = HeaderRules.selectingNames(in: response.headers)
        guard !varyNames.contains("*") else { return .doNotStore(.varyStar) }
        guard
            response.headers["ETag"] != nil || response.headers["Last-Modified"] != nil
                || Self.hasExplicitFreshness(response.headers, sharedStorage: sharedStorage) || rule.reusesForATime
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

    /// Whether `response` is a 3xx without `Location` or `Content-Length` and with no body:
    /// one whose body may never have reached this layer, which must then not store it as
    /// complete (RFC 9111 §3.3). Linux quirk: FoundationNetworking discards the body of a 301,
    /// 302, 303 or 305–308 it meant to follow, and when there is no `Location` to follow,
    /// ``URLSessionTransport`` returns the response without its body and without the
    /// `Content-Length` that counted it. The rule reads the response, not the transport: an
    /// empty 3xx without `Location` sent chunked or over HTTP/2 is not stored either, a lost
    /// reuse of a rare response rather than a stored body that is not the origin's. A streamed
    /// response is decided on its head, before any byte of its body (`response.body` is empty),
    /// so there no 3xx without `Location` or `Content-Length` is stored.
    static func mayHaveLostItsBody(_ response: HTTPResponse) -> Bool {
        (300..<400).contains(response.statusCode) && response.body.isEmpty
            && !response.headers.contains("Location") && !response.headers.contains("Content-Length")
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
        guard var headers = freshenedFields(entry, with: notModified) else { return nil }
        if !notModified.headers.contains("Age"), headers.contains("Age") {
            headers.remove(name: "Age")
        }
        if !notModified.headers.contains("Date") {
            headers["Date"] = HTTPDate.format(times.responseTime)
        }
        return entry.freshened(headers: headers, exchangeTimes: times)
    }

    /// `entry` with the 304's fields merged, or `nil` when the 304 does not confirm it.
    func freshenedHeaders(_ entry: ETagCacheEntry, with notModified: HTTPResponse) -> ETagCacheEntry? {
        freshenedFields(entry, with: notModified).map { entry.freshened(headers: $0, exchangeTimes: entry.exchangeTimes) }
    }

    /// The entry's fields with the 304's merged, or `nil` when the 304 does not confirm the
    /// entry; the entry's own fields, unchanged in memory, when the 304 changes none.
    private func freshenedFields(_ entry: ETagCacheEntry, with notModified: HTTPResponse) -> HTTPHeaders? {
        let receivedTag = notModified.headers["ETag"]
        // The usual 304 resends the stored tag as it was: parsed once, it matches itself.
        if let receivedTag, let parsed = EntityTag(receivedTag) {
            if receivedTag != entry.etag {
                guard let stored = entry.etag.flatMap(EntityTag.init), stored.weaklyMatches(parsed) else { return nil }
            }
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
        // The usual 304 (the ETag again, a new Date) updates stored fields in place.
        if let updated = Self.storedFieldsUpdatedInPlace(entry.headers, by: notModified.headers, droppingFieldsWhere: isDropped) {
            return updated
        }
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
        return HTTPHeaders(merged)
    }

    /// `stored` with the values of the fields of `headers` that `isDropped` does not pick (the
    /// updates) written in place, when each update appears once in `headers` and names one
    /// stored field, spelled alike (the usual 304, which resends the `ETag` and a new `Date`):
    /// what the merge would give, without building it. `stored` itself, sharing its storage,
    /// when no value changes; `nil` when the general merge is needed. `isDropped` must pick
    /// names case-insensitively.
    private static func storedFieldsUpdatedInPlace(
        _ stored: HTTPHeaders, by headers: HTTPHeaders, droppingFieldsWhere isDropped: (String) -> Bool
    ) -> HTTPHeaders? {
        var updated = stored
        for update in headers where !isDropped(update.name) {
            var namesakes = 0
            // A namesake of a kept field is kept too: `isDropped` ignores case.
            for other in headers where HTTPHeaders.equal(other.name, update.name) { namesakes += 1 }
            guard namesakes == 1 else { return nil }
            var match: (index: Int, value: String)?
            for (index, field) in stored.enumerated() where HTTPHeaders.equal(field.name, update.name) {
                guard match == nil, field.name == update.name else { return nil }
                match = (index, field.value)
            }
            guard let match else { return nil }
            if match.value != update.value { updated.setValue(update.value, at: match.index) }
        }
        return updated
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
        guard stored.statusCode == fresh.statusCode, stored.varyingRequestHeaders == fresh.varyingRequestHeaders,
            Self.sameBytes(stored.body, fresh.body)
        else { return true }
        guard stored.headers != fresh.headers else { return false }
        return !stored.headers.equalsFields(of: fresh.headers, keeping: { !Self.isVolatile($0) })
    }

    /// Whether `name` is `Date`, `Age` or `Expires`: fields that change with every response.
    private static func isVolatile(_ name: String) -> Bool {
        HTTPHeaders.equal(name, "Date") || HTTPHeaders.equal(name, "Age") || HTTPHeaders.equal(name, "Expires")
    }

    /// Whether a `GET`'s 200 `response` only repeats what `entry` holds, read in place, without
    /// building the entry ``storeDecision(for:to:times:rule:)`` would: the server ignored
    /// `If-None-Match` and sent the same representation again (nginx does for a weak ETag it
    /// cannot compare). It is, when both are 200s from the same URL with the same body, `entry`
    /// has a validator, times (see `timesMatter`) and no `Vary`, and the response's fields are
    /// the entry's, in order and spelled alike, apart from `Date` and `Age` and the hop-by-hop
    /// and cookie fields a store never keeps (a response carrying a field its `Connection` names
    /// is never a repeat). Then every storage rule reads the same fields as
    /// it did for `entry`, so storing again would change nothing. `false` sends the caller to
    /// the full decision, never to a wrong one.
    ///
    /// - Parameter timesMatter: Whether `entry`'s age is used (then a new `Date` matters).
    func repeatsStoredEntry(_ entry: ETagCacheEntry, in response: HTTPResponse, to request: HTTPRequest, timesMatter: Bool)
        -> Bool
    {
        guard !timesMatter, request.method == .get, response.statusCode == 200, entry.statusCode == 200,
            entry.exchangeTimes != nil, entry.varyHeaderNames.isEmpty, entry.etag != nil || entry.lastModified != nil,
            response.url == entry.url, Self.sameBytes(entry.body, response.body)
        else { return false }
        // A field the response's Connection names would be dropped from what is stored: with one
        // present, the in-place comparison would not be the full decision's.
        let connectionNames = HeaderRules.connectionNames(in: response.headers)
        guard !connectionNames.contains(where: response.headers.contains) else { return false }
        func isSkipped(_ name: String) -> Bool {
            HTTPHeaders.equal(name, "Date") || HTTPHeaders.equal(name, "Age") || HeaderRules.isAlwaysUnstorable(name)
        }
        // The entry holds no field a store never keeps: skipping those in both skips them in the response.
        return response.headers.equalsFields(of: entry.headers, keeping: { !isSkipped($0) })
    }

    /// Whether two bodies hold the same bytes; a freshened entry shares its body's storage with
    /// the stored one, which is then not compared byte by byte (1 MiB would take tens of µs).
    private static func sameBytes(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                // memcmp: `elementsEqual` walks raw buffers a byte at a time.
                guard let first = a.baseAddress, let second = b.baseAddress else { return true }
                return first == second || memcmp(first, second, a.count) == 0
            }
        }
    }

    /// The response to `request` that a 304 confirmed `entry` for.
    func revalidatedResponse(_ entry: ETagCacheEntry, for request: HTTPRequest, url: URL?) -> HTTPResponse {
        HTTPResponse(
            statusCode: entry.statusCode, headers: entry.headers,
            body: request.method == .head ? Data() : entry.body,
            url: url ?? entry.url, source: .revalidated)
    }

    /// Whether a full `HEAD` response shows that `entry` is outdated (RFC 9111 §4.3.5): the
    /// status a `GET` would get is another one that outdates a stored response
    /// (``outdatesStoredResponse(status:)``, the rule a `GET`'s response follows, §4.3.3: a 404
    /// or 410 for a stored 200, a 200 for a stored 404); or, of the same status, its ETag, or
    /// failing that its Last-Modified, differs from the entry's. A failure (a 503) or a 304
    /// says nothing about the stored response.
    func headResponse(_ response: HTTPResponse, outdates entry: ETagCacheEntry) -> Bool {
        guard Self.outdatesStoredResponse(status: response.statusCode) else { return false }
        guard response.statusCode == entry.statusCode else { return true }
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
