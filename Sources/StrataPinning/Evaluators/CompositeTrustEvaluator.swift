/// Passes only when every one of its evaluators passes, checked in order.
///
/// Use it to combine rules, for example a key pin plus a custom check on the leaf:
/// ```swift
/// let evaluator = CompositeTrustEvaluator([keyPins, CertificatePinningEvaluator(certificates: [leaf])])
/// ```
public struct CompositeTrustEvaluator: ServerTrustEvaluator, EvaluatorGroup {
    /// The evaluators, in the order they run.
    public let evaluators: [any ServerTrustEvaluator]

    /// Creates an evaluator requiring all of `evaluators`. An empty list would check nothing, so
    /// `PinningTransport` refuses it as a configuration error (fail closed).
    public init(_ evaluators: [any ServerTrustEvaluator]) {
        self.evaluators = evaluators
    }

    /// `true` when one of the evaluators requires a pinned key (all of them must pass).
    public var requiresPinnedKey: Bool { evaluators.contains { $0.requiresPinnedKey } }

    var members: [any ServerTrustEvaluator] { evaluators }

    /// Runs each evaluator in order.
    ///
    /// - Throws: The first failure.
    public func evaluate(_ chain: [Certificate], forHost host: String) throws {
        for evaluator in evaluators {
            try evaluator.evaluate(chain, forHost: host)
        }
    }
}
