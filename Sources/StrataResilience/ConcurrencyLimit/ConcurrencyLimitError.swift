import Foundation
import Strata

/// The error a ``ConcurrencyLimitTransport`` fails a call with when it found no place: the
/// queue was full, or the call waited as long as it may.
///
/// It is not a ``/Strata/TransportError``, so ``/Strata/RetryTransport`` does not retry it: the limit protects
/// the dependency (and this process) from more calls, and a retry would be one more.
public struct ConcurrencyLimitError: Error, Sendable, CustomStringConvertible {
    /// Why the call found no place.
    public enum Reason: Sendable, Hashable {
        /// `maxInFlight` calls were in flight and `maxQueued` waiting: failed at once.
        case queueFull(maxInFlight: Int, maxQueued: Int)
        /// The call waited `waited` (the policy's queue timeout) without a place.
        case queueTimedOut(waited: Duration)
    }

    /// Why the call found no place.
    public var reason: Reason
    /// The group whose places were taken, such as `https://api.example.com:443`.
    public var group: String
    /// The method of the call that was refused.
    public var method: HTTPMethod
    /// The URL of the call that was refused.
    public var url: URL

    /// Creates the error.
    public init(reason: Reason, group: String, method: HTTPMethod, url: URL) {
        self.reason = reason
        self.group = group
        self.method = method
        self.url = url
    }

    /// For example `GET https://api.example.com/todos: not sent, 64 calls to
    /// https://api.example.com:443 are in flight and 256 wait (ConcurrencyLimitTransport; raise
    /// maxInFlight or maxQueued if the dependency can take more)`.
    public var description: String {
        let call = "\(method) \(Redaction().redact(url)): not sent"
        switch reason {
        case .queueFull(let maxInFlight, let maxQueued):
            return "\(call), \(maxInFlight) calls to \(group) are in flight and \(maxQueued) wait "
                + "(ConcurrencyLimitTransport; raise maxInFlight or maxQueued if the dependency can take more)"
        case .queueTimedOut(let waited):
            return "\(call), no place among the calls to \(group) in flight came free within \(waited.readable) "
                + "(ConcurrencyLimitTransport.queueTimeout)"
        }
    }
}

extension ConcurrencyLimitError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}
