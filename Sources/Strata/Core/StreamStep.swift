/// How a layer's call to its inner `stream` ended: the consumer read the response, or the layer
/// kept the response to itself, decided on its head (a 401 to resend, a 503 to retry, a 304 to
/// answer from a store), and the consumer never saw it.
package enum StreamStep<Result: Sendable>: Sendable {
    /// The consumer was called with the response; what it returned.
    case consumed(Result)
    /// The layer intercepted the response; its body is what the layer chose to keep (often none).
    case intercepted(HTTPResponse)
}
