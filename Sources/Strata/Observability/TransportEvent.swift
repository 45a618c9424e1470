import Foundation

/// Something a transport layer did for one request, reported through ``TransportEvents`` to the
/// nearest ``LoggingTransport`` (or any ``TransportEventObserver``) above it.
///
/// Events carry raw values (URLs, headers); observers redact before they write anything.
public struct TransportEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        /// A request is about to be sent by the layer below the observer.
        case requestStarted(method: HTTPMethod, url: URL?, headers: HTTPHeaders, body: Data?)
        /// A response arrived.
        case responseReceived(statusCode: Int, duration: Duration, headers: HTTPHeaders, body: Data,
                              source: HTTPResponse.Source)
        /// No response arrived.
        case requestFailed(error: any Error, duration: Duration)
        /// A retry layer will send the request again after `delay` seconds.
        case retryScheduled(attempt: Int, delay: Double, reason: String)
        /// A token refresh changed phase; `waiters` requests were waiting for it.
        case authRefresh(phase: RefreshPhase, waiters: Int)
        /// A request was resent with a newer token.
        case authResend(refreshed: Bool)
        /// An ETag layer acted: `action` is for example `revalidated` or `stored`.
        case cache(action: String, url: URL?)
        /// A pinned host's certificate chain was checked.
        case pinCheck(host: String, matchedPin: String?, failure: String?)
        /// A connection was opened or taken from a pool.
        case connection(host: String, port: Int, reused: Bool)
    }

    /// The phases of a token refresh.
    public enum RefreshPhase: Sendable, Hashable {
        /// The refresh began.
        case started
        /// A new token is in place.
        case succeeded
        /// The refresh threw; carries the error's description.
        case failed(String)
    }

    /// The identifier of the logical request, stable across retries and resends.
    public var requestID: String
    /// The attempt this event belongs to, starting at 1.
    public var attempt: Int
    /// What happened.
    public var kind: Kind

    /// Creates an event.
    public init(requestID: String, attempt: Int, kind: Kind) {
        self.requestID = requestID
        self.attempt = attempt
        self.kind = kind
    }
}

/// Receives ``TransportEvent``s from the layers below it.
public protocol TransportEventObserver: Sendable {
    /// Called synchronously by the layer that reports the event; keep it quick.
    func observe(_ event: TransportEvent)
}
