/// Passes when any of its evaluators passes: the rule for a host matched by several patterns.
/// With no evaluators it passes nothing.
struct AnyOfTrustEvaluator: ServerTrustEvaluator, EvaluatorGroup {
    let evaluators: [any ServerTrustEvaluator]

    var members: [any ServerTrustEvaluator] { evaluators }

    /// Any one of them may pass, so every one must require a pinned key.
    var requiresPinnedKey: Bool { !evaluators.isEmpty && evaluators.allSatisfy(\.requiresPinnedKey) }

    func evaluate(_ chain: [Certificate], forHost host: String) throws {
        var pins: [String] = []
        var otherFailure: (any Error)?
        for evaluator in evaluators {
            do {
                try evaluator.evaluate(chain, forHost: host)
                return
            } catch let ServerTrustError.pinMismatch(_, _, evaluatorPins) {
                pins += evaluatorPins.filter { !pins.contains($0) }
            } catch {
                otherFailure = otherFailure ?? error
            }
        }
        if let otherFailure { throw otherFailure }
        throw ServerTrustError.pinMismatch(host: host, chain: chain, pins: pins)
    }
}
