import Foundation
import Strata

/// The error a ``CircuitBreakerTransport`` fails a call with, at once and without sending it,
/// while the circuit of its group is open (or half-open with its probes already out).
///
/// It is not a ``/Strata/TransportError``, so ``/Strata/RetryTransport`` never retries into an open circuit: a
/// retry would fail the same way, and the point of the circuit is that the dependency gets no
/// calls while it recovers.
public struct CircuitOpenError: Error, Sendable, CustomStringConvertible {
    /// The group whose circuit is open, such as `https://api.example.com:443` (see
    /// ``RequestPartition``).
    public var group: String
    /// Where the circuit is: ``CircuitState/open(reopensIn:)`` or ``CircuitState/halfOpen``.
    public var state: CircuitState
    /// The method of the call that was refused.
    public var method: HTTPMethod
    /// The URL of the call that was refused.
    public var url: URL
    /// When calls may be let through again, as a wall-clock date (for a `Retry-After` of your
    /// own); `nil` while half-open.
    public var retryAt: Date?

    /// Creates the error.
    public init(group: String, state: CircuitState, method: HTTPMethod, url: URL, retryAt: Date?) {
        self.group = group
        self.state = state
        self.method = method
        self.url = url
        self.retryAt = retryAt
    }

    /// For example `GET https://api.example.com/todos: not sent, the circuit for
    /// https://api.example.com:443 is open after repeated failures; probes are let through in
    /// 4.2 s (CircuitBreakerTransport)`.
    public var description: String {
        let why =
            switch state {
            case .open(let reopensIn):
                "is open after repeated failures; probes are let through in \(reopensIn.readable)"
            case .halfOpen, .closed:
                "is half-open and its probes are still out; calls are let through once they succeed"
            }
        return "\(method) \(Redaction().redact(url)): not sent, the circuit for \(group) \(why) (CircuitBreakerTransport)"
    }
}

extension CircuitOpenError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}
