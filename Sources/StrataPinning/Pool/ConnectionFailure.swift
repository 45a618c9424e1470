import Foundation
import Strata

/// How a pooled connection turns its failures into what callers and retry layers see.
///
/// Trust failures become `TransportError` of kind ``/Strata/TransportError/Kind/tls`` with the
/// ``ServerTrustError`` (or the custom evaluator's error) as `underlying` and its description as
/// `message`: `tls` is not transient, so `RetryTransport` never retries them.
enum ConnectionFailure {
    /// A refused certificate (OpenSSL's verification or the evaluator) for `request`, or the
    /// failure to connect; `proxy` is the proxy the connection went through, if any.
    ///
    /// Through a proxy, a refused certificate may be the proxy's own: a proxy that inspects TLS
    /// terminates it and presents a certificate it made for the host, which the pins refuse by
    /// design. The message says so, so the reader knows where to look.
    static func transportError(for error: any Error, request: HTTP1Request, proxy: ProxyConfiguration? = nil) -> TransportError {
        if let error = error as? TransportError { return filled(error, request: request) }
        var message = String(describing: error)
        if let proxy, error is ServerTrustError {
            message +=
                " The connection went through the proxy \(proxy.redactedURL): a proxy that inspects TLS presents "
                + "a certificate of its own, which pinning refuses by design. Ask for this host to be exempted from TLS "
                + "inspection, or list it in NO_PROXY if it is reachable directly."
        }
        return TransportError(.tls, method: request.method, url: request.url, message: message, underlying: error)
    }

    /// `error` with the request's method and URL filled in where missing.
    static func filled(_ error: TransportError, request: HTTP1Request) -> TransportError {
        var error = error
        error.method = error.method ?? request.method
        error.url = error.url ?? request.url
        return error
    }
}
