import Foundation

/// What ``ETagTransport`` did with one request, reported to its `onEvent` hook so a logging
/// layer can subscribe.
///
/// Store failures are not among these: the store protocol cannot fail, so each store reports
/// its own trouble (see ``ETagStoreEvent``), and the request goes on as a plain one.
public enum ETagEvent: Sendable, Hashable {
    /// Why a request went to the inner transport without the layer touching it.
    public enum PassThroughReason: String, Sendable, Hashable {
        /// The caller set `If-None-Match`, `If-Modified-Since`, `If-Match`, `If-Unmodified-Since`
        /// or `If-Range`: its request and its 304 are passed through untouched.
        case callerConditional = "the caller set its own conditional header"
        /// The request asks for a `Range`; partial content is not stored.
        case range = "range request"
        /// The request carries `Cache-Control: no-store`.
        case requestNoStore = "the request says Cache-Control: no-store"
        /// A method that neither reads from nor invalidates the store, such as `OPTIONS`.
        case method = "the method does not use the store"
        /// The request has no URL to key an entry by.
        case noURL = "the request has no URL"
    }

    /// Why a response was not stored.
    public enum NotStoredReason: String, Sendable, Hashable {
        /// Only `200 OK` responses are stored.
        case status = "only 200 responses are stored"
        /// The response has neither `ETag` nor `Last-Modified`, so it cannot be revalidated.
        case noValidator = "no ETag or Last-Modified"
        /// The response carries `Cache-Control: no-store`.
        case responseNoStore = "the response says Cache-Control: no-store"
        /// The response carries `Vary: *`, which never matches a later request.
        case varyStar = "the response says Vary: *"
        /// `HEAD` responses have no body to store.
        case head = "HEAD responses are not stored"
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
}

extension ETagEvent {
    /// A short name for logs, such as `revalidated` or `not-stored`.
    public var action: String {
        switch self {
        case .passedThrough: "pass-through"
        case .miss: "miss"
        case .validating: "validating"
        case .revalidated: "revalidated"
        case .validatorMismatch: "validator-mismatch"
        case .stored: "stored"
        case .notStored: "not-stored"
        case .invalidated: "invalidated"
        }
    }

    /// The URL the event concerns, when known.
    public var url: URL? {
        switch self {
        case .passedThrough(let url, _): url
        case .miss(let url), .validating(let url, _, _), .revalidated(let url, _), .validatorMismatch(let url),
             .stored(let url, _), .notStored(let url, _), .invalidated(let url): url
        }
    }
}
