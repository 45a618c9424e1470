import Strata

/// One request for a pooled connection's thread: what to send, to whom, by when, and under
/// which trust rule.
struct ExchangeJob: Sendable {
    /// The serialized request.
    let request: HTTP1Request
    /// The evaluator a new connection's verified chain must pass.
    let evaluator: any ServerTrustEvaluator
    /// When the whole exchange (connect and handshake included) must be over.
    let deadline: ContinuousClock.Instant
    /// The pool found the kept connection idle past its expiry: open a new one.
    let idleExpired: Bool
    /// Whether the caller's task has a `TransportEvents` observer, so events are worth collecting.
    let collectsEvents: Bool
    /// Where the body comes from when it is written after the head (a file or a stream); nil
    /// when `request` holds it.
    var requestBody: RequestBodyPipe? = nil
    /// Set to stream the response body: the head goes to `onHead` as soon as it is read, the
    /// body through this hand-over, and the job ends when the body was read, drained or dropped.
    var streamedResponse: StreamedResponse? = nil
    /// Told the head of a streamed response (its body empty), on the slot's thread.
    var onHead: (@Sendable (HTTP1Response) -> Void)? = nil
    /// Told, on the slot's thread, the ALPN protocol a new connection's server selected (nil for
    /// none), once its trust check passed and before anything is written: requests waiting to
    /// learn the host's protocol need not wait for this request's response.
    var onEstablished: (@Sendable (String?) -> Void)?
}

/// What a job's exchange produced.
enum ExchangeOutcome: Sendable {
    /// The HTTP/1.1 response.
    case response(HTTP1Response)
    /// A new connection's server selected `h2`: the verified stream, on which nothing was
    /// written yet, for an HTTP/2 connection to carry the request instead.
    case http2(TLSStream)
}

/// What a job did: the response or failure, whether the connection stays open, and the events
/// to report in the caller's task (task-local observers are not visible on the connection's
/// thread).
struct ExchangeReport: Sendable {
    var result: Result<ExchangeOutcome, any Error> = .failure(CancellationError())
    /// The connection is open and may carry another request.
    var keepAlive = false
    /// What happened, in order; empty when nothing observes the caller.
    var events: [ConnectionEvent] = []
}
