/// The facts the tour established, for its summary and for tests.
struct TourReport: Sendable {
    /// Token grants the sandbox answered (one refresh for every concurrent 401).
    var refreshes: Int
    /// Requests the sandbox answered 401.
    var unauthorized: Int
    /// Retries `RetryTransport` made against the flaky endpoint.
    var retries: Int
    /// Whether the second GET of the list came back with `source == .revalidated`.
    var revalidated: Bool
    /// The pin of the sandbox certificate's key, which the stack pinned.
    var pin: String
    /// The pin mismatch message of the wrongly pinned transport.
    var pinFailure: String
    /// The `circuit.opened` event of the resilient stack's circuit breaker, as printed.
    var circuitOpened: String
    /// Calls of `GET /v1/reports` the sandbox received before the circuit opened: the attempts
    /// the breaker counted.
    var callsUntilOpen: Int
    /// Calls of `GET /v1/reports` the sandbox received while the circuit was open (none).
    var callsWhileOpen: Int
    /// What each `GET /v1/reports` sent while the circuit was open failed with, unwrapped from
    /// `NetworkError.transport` (a `CircuitOpenError` each).
    var circuitRefusals: [any Error]
    /// Every log line `LoggingTransport` wrote.
    var logLines: [String]
    /// The access and refresh tokens the tour used, so a test can prove none was printed.
    var secrets: [String]
    /// How long the tour took, sandbox start included.
    var duration: Duration
}
