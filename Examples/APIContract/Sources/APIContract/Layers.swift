#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// Decorator names from api.md, with the exact parameter labels and defaults.

func layersContract() {
    let retry = RetryTransport(inner: URLSessionTransport(), policy: RetryPolicy())
    _ = RetryTransport(inner: retry)
    let jitters: [RetryPolicy.Jitter] = [.none, .full, .equal, .decorrelated]
    _ = jitters
    _ = RetryPolicy(maxRetries: 3, baseDelay: 0.5, maxDelay: 30, jitter: .full,
                    retryableStatusCodes: [408, 429, 500, 502, 503, 504],
                    retryableMethods: [.get, .head, .options, .trace, .put, .delete],
                    maxRetryAfter: 60)
}
