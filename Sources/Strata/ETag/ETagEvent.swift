import Foundation

/// What ``ETagTransport`` did with one request, reported through ``TransportEvents`` to every
/// observer above it (``LoggingTransport``, ``ObservingTransport``).
///
/// Store failures are not among these: the store protocol cannot fail, so each store reports
/// its own trouble as ``ETagStoreEvent``s, and the request goes on as a plain one.
public enum ETagEvent: Sendable, Hashable {
    /// Why a request went to the inner transport without the layer touching it.
    public enum PassThroughReason: String, Sendable, Hashable {
        /// The caller set `If-Match`, `If-Unmodified-Since` or `If-Range`, which only the origin
        /// evaluates (RFC 9111 §4.3.2): its request and the origin's answer are passed through
        /// untouched. (`If-None-Match` and `If-Modified-Since` use the store: see
        /// ``ETagEvent/callerConditional(_:outcome:)``.)
        case callerConditional = "the caller set its own conditional header"
        /// The request asks for a `Range`; partial content is not stored.
        case range = "range request"
        /// The request carries `Cache-Control: no-store`.
        case requestNoStore = "the request says Cache-Control: no-store"
        /// A safe method that neither reads from nor invalidates the store: `OPTIONS` or `TRACE`.
        /// (Every method not known to be safe invalidates the URL it succeeds on, RFC 9111 §4.4.)
        case method = "the method does not use the store"
        /// The endpoint's cache policy is ``EndpointCachePolicy/neverStore``.
        case endpointNeverStores = "the endpoint's cache policy is never store"
    }

    /// Why a response was not stored.
    public enum NotStoredReason: String, Sendable, Hashable {
        /// The status is not stored: 206, a status that asks for a retry (401, 407, 408, 429,
        /// 500, 502, 503, 504), or one RFC 9110 §15.1 does not call heuristically cacheable,
        /// without explicit freshness, `public`, or `private` in a private store.
        case status = "the status is not stored"
        /// The response has neither `ETag` nor `Last-Modified`, so it cannot be revalidated.
        case noValidator = "no ETag or Last-Modified"
        /// The response carries `Cache-Control: no-store`.
        case responseNoStore = "the response says Cache-Control: no-store"
        /// The response carries `Vary: *`, which never matches a later request.
        case varyStar = "the response says Vary: *"
        /// `HEAD` responses have no body to store.
        case head = "HEAD responses are not stored"
        /// A `text/event-stream` body is a live feed, not a representation: replayed from the
        /// store (on a 304 or while fresh) it would hand a reconnecting reader old events.
        case eventStream = "server-sent event streams are not stored"
        /// A streamed body was larger than ``ETagTransport``'s `maxStreamedBodyBytes`.
        case streamedBodyTooLarge = "the streamed body is larger than the layer keeps"
        /// A 3xx without `Location` or `Content-Length` that came with no body, which may not
        /// have reached the layer (URLSession on Linux discards it), is never stored as if
        /// complete (RFC 9111 §3.3); nor is such a streamed 3xx, decided before its body is read.
        case bodyMayBeIncomplete = "a 3xx without Location or Content-Length may have lost its body"
        /// The caller stopped reading a streamed body before its end (or reading it failed).
        case streamedBodyUnfinished = "the streamed body was not read to its end"
    }

    /// Why a stale stored response answered without the server's confirmation.
    public enum StaleReason: Sendable, Hashable {
        /// The request's `max-stale` accepts it (RFC 9111 §5.2.1.2).
        case maxStale
        /// Within the response's `stale-while-revalidate` (RFC 5861 §3): a background refresh
        /// was started, or one was already running.
        case revalidatingInBackground
        /// Within `stale-if-error` (RFC 5861 §4): revalidating it failed as `failure` says (a
        /// 5xx status, or the error's kind), with no URL or credential in it.
        case originFailed(failure: String)
    }

    /// How a background refresh (`stale-while-revalidate`) ended.
    public enum RefreshOutcome: String, Sendable, Hashable {
        /// The server answered (a 304 or a new response); the store holds what it said.
        case completed = "completed"
        /// The request failed; the stale entry stays until the next attempt.
        case failed = "failed"
        /// The transport was shut down or released, or the refresh was cancelled.
        case cancelled = "cancelled"
        /// Not started: the transport's limit of concurrent refreshes was reached.
        case skippedAtLimit = "skipped: the limit of concurrent background refreshes was reached"
    }

    /// What the layer did with a request that carried its own `If-None-Match` or
    /// `If-Modified-Since` (RFC 9111 §4.3.2).
    public enum CallerConditionalOutcome: String, Sendable, Hashable {
        /// A stored response answered, and the caller's validators matched it: a `304` made from
        /// the store, with no network.
        case notModified = "its validators matched the stored response: answered 304 from the store"
        /// A stored response answered, and the caller's validators did not match it (or its
        /// status is not a 2xx, where preconditions do not apply): the stored response in full,
        /// as the origin would have sent it.
        case modified = "its validators did not match the stored response: answered with it in full"
        /// No stored response could answer (none, or stale): the request went to the origin with
        /// the caller's validators untouched, and the origin's `304` or `200` is the caller's.
        case forwarded = "no stored response could answer: sent with the caller's own validators"
    }

    /// The request passed through untouched.
    case passedThrough(URL?, reason: PassThroughReason)
    /// Nothing usable was stored; the request went out without conditional headers.
    case miss(URL)
    /// A stored entry's validators were added: `If-None-Match` and/or `If-Modified-Since`.
    case validating(URL, etag: String?, lastModified: String?)
    /// The server answered 304; the caller got the stored body, freshened headers and
    /// ``HTTPResponse/Source/revalidated`` as the response's source.
    case revalidated(URL, bodyBytes: Int)
    /// A 304 did not match the entry it was validating; the request is re-sent once without
    /// conditional headers.
    case validatorMismatch(URL)
    /// A response was stored (replacing any earlier entry for the same key).
    case stored(URL, bodyBytes: Int)
    /// A response was not stored.
    case notStored(URL, reason: NotStoredReason)
    /// Entries for a URL were removed: a successful unsafe request, or a `HEAD` that showed a
    /// new validator.
    case invalidated(URL)
    /// A fresh stored response answered with no network (RFC 9111 §4.2); `age` is its `Age`.
    case fresh(URL, age: Int)
    /// A stale stored response answered (source ``HTTPResponse/Source/stale``).
    case servedStale(URL, age: Int, reason: StaleReason)
    /// An identical request (same key, partition and headers) was already in flight; this one
    /// awaited its result instead of sending its own.
    case coalesced(URL)
    /// A background refresh of a stale entry ended (or was not started). Reported to the
    /// observers of the request that started it, after that request returned.
    case backgroundRefresh(URL, outcome: RefreshOutcome)
    /// The request said `only-if-cached` and nothing usable was stored: the layer answered 504
    /// (RFC 9111 §5.2.1.7).
    case onlyIfCachedUnsatisfied(URL)
    /// The request carried its own `If-None-Match` or `If-Modified-Since`; `outcome` says how it
    /// was answered. Reported besides ``fresh(_:age:)`` or ``servedStale(_:age:reason:)`` when a
    /// stored response answered, instead of ``miss(_:)`` or ``validating(_:etag:lastModified:)``
    /// when the request went to the origin.
    case callerConditional(URL, outcome: CallerConditionalOutcome)
}

extension ETagEvent: TransportEvent {
    /// `etag.` plus what happened: `etag.revalidated`, `etag.stored`, `etag.miss`, ...
    public var name: String {
        switch self {
        case .passedThrough: "etag.pass-through"
        case .miss: "etag.miss"
        case .validating: "etag.validating"
        case .revalidated: "etag.revalidated"
        case .validatorMismatch: "etag.validator-mismatch"
        case .stored: "etag.stored"
        case .notStored: "etag.not-stored"
        case .invalidated: "etag.invalidated"
        case .fresh: "etag.fresh"
        case .servedStale: "etag.stale"
        case .coalesced: "etag.coalesced"
        case .backgroundRefresh: "etag.background-refresh"
        case .onlyIfCachedUnsatisfied: "etag.only-if-cached-unsatisfied"
        case .callerConditional: "etag.caller-conditional"
        }
    }

    /// `notice` for a validator mismatch (the server's 304 did not match what was stored), for
    /// a stale response served because the origin failed, and for a failed background refresh;
    /// `debug` otherwise.
    public var logLevel: LogLevel {
        switch self {
        case .validatorMismatch, .servedStale(_, _, .originFailed), .backgroundRefresh(_, .failed): .notice
        default: .debug
        }
    }

    /// For example `304 for https://api.example.com/me: 1024 bytes answered from the store`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .passedThrough(let url, let reason):
            "passed \(redaction.redact(url)) through untouched: \(reason.rawValue)"
        case .miss(let url):
            "nothing stored for \(redaction.redact(url)); sent unconditionally"
        case .validating(let url, let etag, let lastModified):
            "revalidating \(redaction.redact(url)) with "
                + [etag.map { "If-None-Match: \($0)" }, lastModified.map { "If-Modified-Since: \($0)" }]
                .compactMap { $0 }.joined(separator: " and ")
        case .revalidated(let url, let bytes):
            "304 for \(redaction.redact(url)): \(bytes) bytes answered from the store"
        case .validatorMismatch(let url):
            "a 304 for \(redaction.redact(url)) did not match the stored validators; sending it again unconditionally"
        case .stored(let url, let bytes):
            "stored \(bytes) bytes for \(redaction.redact(url))"
        case .notStored(let url, let reason):
            "did not store \(redaction.redact(url)): \(reason.rawValue)"
        case .invalidated(let url):
            "removed what was stored for \(redaction.redact(url))"
        case .fresh(let url, let age):
            "answered \(redaction.redact(url)) from the store with no network: fresh, Age \(age)"
        case .servedStale(let url, let age, let reason):
            "answered \(redaction.redact(url)) with a stale stored response (Age \(age)): " + reason.explanation
        case .coalesced(let url):
            "waited for an identical request for \(redaction.redact(url)) already in flight"
        case .backgroundRefresh(let url, let outcome):
            "background refresh of \(redaction.redact(url)) \(outcome.rawValue)"
        case .onlyIfCachedUnsatisfied(let url):
            "answered 504 for \(redaction.redact(url)): the request said only-if-cached and nothing usable is stored"
        case .callerConditional(let url, let outcome):
            "the request for \(redaction.redact(url)) carried its own validators; \(outcome.rawValue)"
        }
    }

    /// `body_bytes` when a body was stored or answered from the store, `age` when a stored
    /// response answered without the server (the URL is in the message).
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .revalidated(_, let bytes), .stored(_, let bytes): ["body_bytes": String(bytes)]
        case .fresh(_, let age), .servedStale(_, let age, _): ["age": String(age)]
        case .passedThrough, .miss, .validating, .validatorMismatch, .notStored, .invalidated, .coalesced,
            .backgroundRefresh, .onlyIfCachedUnsatisfied, .callerConditional:
            [:]
        }
    }
}

extension ETagEvent.StaleReason {
    /// Why the stale response was acceptable, for a log line.
    var explanation: String {
        switch self {
        case .maxStale: "the request's max-stale accepts it"
        case .revalidatingInBackground: "within stale-while-revalidate, revalidating in the background"
        case .originFailed(let failure): "within stale-if-error, the origin failed: \(failure)"
        }
    }
}
