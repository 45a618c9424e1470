import Foundation
import Strata

/// How `PinningTransport` turns its failures into what callers and retry layers see.
///
/// Trust failures become `TransportError` of kind ``TransportError/Kind/tls`` with the
/// ``ServerTrustError`` (or the custom evaluator's error) as `underlying` and its description as
/// `message`: `tls` is not transient, so `RetryTransport` never retries them.
enum PinningFailure {
    /// A refused certificate (OpenSSL's verification or the evaluator) for `request`.
    static func transportError(for error: any Error, request: HTTP1Request) -> TransportError {
        if let error = error as? TransportError { return filled(error, request: request) }
        return TransportError(.tls, method: request.method, url: request.url, message: String(describing: error),
                       underlying: error)
    }

    /// `error` with the request's method and URL filled in where missing.
    static func filled(_ error: TransportError, request: HTTP1Request) -> TransportError {
        var error = error
        error.method = error.method ?? request.method
        error.url = error.url ?? request.url
        return error
    }
}

extension TransportError {
    /// The certificate problem behind a ``TransportError/Kind/tls`` failure of
    /// ``PinningTransport``: a pin mismatch, an expired certificate, a wrong host name, ...
    /// `nil` for other failures.
    public var serverTrustError: ServerTrustError? {
        underlying as? ServerTrustError
    }
}
