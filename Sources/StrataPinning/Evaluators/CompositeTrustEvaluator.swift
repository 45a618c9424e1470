/// Passes only when every one of its evaluators passes, checked in order.
///
/// Use it to combine rules, for example a key pin plus a custom check on the leaf:
/// ```swift
/// let evaluator = CompositeTrustEvaluator([keyPins, CertificatePinningEvaluator(certificates: [leaf])])
/// ```
public struct CompositeTrustEvaluator: ServerTrustEvaluator {
    /// The evaluators, in the order they run.
    public let evaluators: [any ServerTrustEvaluator]

    /// Creates an evaluator requiring all of `evaluators`. An empty list passes every chain that
    /// OpenSSL verified.
    public init(_ evaluators: [any ServerTrustEvaluator]) {
        self.evaluators = evaluators
    }

    /// Runs each evaluator in order.
    ///
    /// - Throws: The first failure.
    public func evaluate(_ chain: [Certificate], forHost host: String) throws {
        for evaluator in evaluators {
            try evaluator.evaluate(chain, forHost: host)
        }
    }
}
