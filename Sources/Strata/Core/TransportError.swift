import Foundation

/// A failure to obtain any HTTP response: the network, not the server's answer, failed.
///
/// The ``kind`` tells retry logic what happened: ``Kind/timedOut``, ``Kind/cannotConnect`` and
/// ``Kind/connectionLost`` are transient (``isTransient``); the rest are not worth retrying.
/// Cancellation is never a `TransportError`: a cancelled task gets `CancellationError`.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in terms a retry policy can act on.
    public enum Kind: String, Sendable, Hashable {
        /// No response arrived within the configured time.
        case timedOut = "timed out"
        /// The host could not be resolved or refused the connection.
        case cannotConnect = "cannot connect"
        /// The connection closed or reset before the response was complete.
        case connectionLost = "connection lost"
        /// The TLS handshake or certificate verification failed.
        case tls = "TLS failure"
        /// The request could not be sent as given (bad URL, forbidden header, ...).
        case invalidRequest = "invalid request"
        /// The server's bytes were not a valid HTTP response, or exceeded a configured limit.
        case invalidResponse = "invalid response"
        /// Redirects looped or exceeded the limit.
        case tooManyRedirects = "too many redirects"
        /// Any other failure; see ``TransportError/message``.
        case other = "transport failure"
    }

    /// What went wrong.
    public var kind: Kind
    /// The method of the request that failed, when known.
    public var method: HTTPMethod?
    /// The URL of the request that failed, when known.
    public var url: URL?
    /// Details for a person: the underlying library's own text, a limit that was exceeded.
    public var message: String
    /// The error reported by the layer below (for example an `NSError` from URLSession).
    public var underlying: (any Error)?
    /// How many times a ``RetryTransport`` sent the request, and for how long, before this
    /// error ended it; `nil` when the request was sent once.
    public var retrySummary: RetrySummary?

    /// Creates a transport error.
    public init(
        _ kind: Kind, method: HTTPMethod? = nil, url: URL? = nil, message: String = "",
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.method = method
        self.url = url
        self.message = message
        self.underlying = underlying
    }

    /// Whether trying again later may succeed: a timeout, a refused connection or a lost one.
    public var isTransient: Bool {
        switch kind {
        case .timedOut, .cannotConnect, .connectionLost: true
        default: false
        }
    }

    /// For example `GET https://api.example.com/users: timed out (after 30 s)`.
    ///
    /// The URL and the message go through ``Redaction``'s defaults (URL userinfo, token
    /// parameters in the query or fragment), so the text is safe for any log; ``url`` keeps the
    /// raw value for code.
    public var description: String {
        let redaction = Redaction()
        var text = ""
        if let method { text += "\(method) " }
        if let url { text += redaction.redact(url) }
        text += text.isEmpty ? kind.rawValue : ": \(kind.rawValue)"
        if !message.isEmpty { text += " (\(redaction.scrub(message)))" }
        if let retrySummary { text += " \(retrySummary)" }
        return text
    }
}

extension TransportError: LocalizedError {
    /// The redacted ``description``, so `localizedDescription` says what happened and what to
    /// do instead of "The operation could not be completed", and is as safe to log.
    public var errorDescription: String? { description }
}
