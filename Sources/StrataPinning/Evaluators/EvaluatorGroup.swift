/// An evaluator made of other evaluators, so a configuration check can look inside it.
protocol EvaluatorGroup {
    var members: [any ServerTrustEvaluator] { get }
}
