#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension ConditionalRequestPolicy {
    /// The answer to `request` made from the stored `entry` (fresh, or stale where allowed), and
    /// whether the caller's own validators matched it.
    ///
    /// RFC 9111 §4.3.2: a cache that can answer from a stored response evaluates the request's
    /// `If-None-Match` / `If-Modified-Since` against it. When they hold, the answer is a `304`
    /// built from the stored fields (``notModifiedResponse(_:for:age:source:)``); when they do
    /// not, it is the stored response in full, which is what the caller would have got from the
    /// origin. Without caller validators, it is ``storedResponse(_:for:age:source:)``.
    ///
    /// - Returns: The response, and `nil` when the request carried no validator of its own,
    ///   otherwise whether they matched (`true`: the `304`).
    func storedAnswer(
        _ entry: ETagCacheEntry, for request: HTTPRequest, age: Int, source: HTTPResponse.Source,
        now: () -> Date
    ) -> (response: HTTPResponse, callerValidatorsMatched: Bool?) {
        guard let preconditions = CallerPreconditions(request.headers) else {
            return (storedResponse(entry, for: request, age: age, source: source), nil)
        }
        guard preconditions.holdNotModified(for: entry, method: request.method, now: now()) else {
            return (storedResponse(entry, for: request, age: age, source: source), false)
        }
        return (notModifiedResponse(entry, for: request, age: age, source: source), true)
    }

    /// A `304 Not Modified` for `request` made from the stored `entry`: the fields a `200` would
    /// have carried that RFC 9110 §15.4.5 asks a 304 to repeat (`Cache-Control`,
    /// `Content-Location`, `Date`, `ETag`, `Expires`, `Vary`), `Last-Modified` when there is no
    /// `ETag` (the caller's only validator then), `Age` (RFC 9111 §5.1: served from a cache), no
    /// body, and no other representation metadata (§15.4.5 says not to send it).
    func notModifiedResponse(
        _ entry: ETagCacheEntry, for request: HTTPRequest, age: Int, source: HTTPResponse.Source
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        for field in entry.headers where Self.notModifiedFieldNames.contains(where: { HTTPHeaders.equal($0, field.name) }) {
            headers.add(name: field.name, value: field.value)
        }
        if entry.etag == nil, let lastModified = entry.lastModified {
            headers.add(name: "Last-Modified", value: lastModified)
        }
        headers["Age"] = String(age)
        let stored = storedResponse(entry, for: request, age: age, source: source)
        return HTTPResponse(statusCode: 304, headers: headers, body: Data(), url: stored.url, source: source)
    }

    /// The fields RFC 9110 §15.4.5 requires a 304 to carry when a 200 would.
    private static let notModifiedFieldNames = ["Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Vary"]

    /// What a `304` the origin sent to the caller's own validators does to the stored response.
    enum CallerNotModifiedUpdate: Hashable, Sendable {
        /// The 304 identifies the stored response: store it freshened.
        case freshen(ETagCacheEntry)
        /// The stored response is outdated: remove it.
        case remove
        /// The 304 is about another representation (the caller's own): leave the store alone.
        case leave
    }

    /// What `notModified`, the origin's answer to the caller's own validators, does to the
    /// stored `entry`.
    ///
    /// A stored status other than 2xx is removed: an origin evaluates `If-None-Match` and
    /// `If-Modified-Since` only when it would otherwise answer 2xx (RFC 9110 §13.2.1), so a 304
    /// says the selected representation is a 2xx (§15.4.5), whatever its tag, and a stored 404
    /// or 301 no longer answers the request. Freshening it would serve the 404 for a resource
    /// that exists; leaving it stale would let a later 304 to the layer's own validators
    /// freshen it all the same.
    ///
    /// A stored 2xx is freshened when the 304 identifies it (RFC 9111 §4.3.4): its `ETag`
    /// weakly matches the stored one, or it has no `ETag` and its `Last-Modified` is the
    /// stored one. Otherwise it is left alone: a 304 for a representation the caller holds
    /// but the store does not (the caller's list named another tag) must not touch the stored
    /// response, nor one that carries no validator.
    func callerNotModified(_ notModified: HTTPResponse, updates entry: ETagCacheEntry, times: ExchangeTimes)
        -> CallerNotModifiedUpdate
    {
        guard (200..<300).contains(entry.statusCode) else { return .remove }
        if let received = notModified.headers["ETag"].flatMap(EntityTag.init) {
            guard let stored = entry.etag.flatMap(EntityTag.init), stored.weaklyMatches(received) else { return .leave }
        } else {
            guard let received = notModified.headers["Last-Modified"], let stored = entry.lastModified,
                received.trimmingASCIIWhitespace() == stored.trimmingASCIIWhitespace()
            else { return .leave }
        }
        return freshened(entry, with: notModified, times: times).map { .freshen($0) } ?? .leave
    }
}
