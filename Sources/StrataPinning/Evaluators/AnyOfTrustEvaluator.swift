/// Passes when any of its evaluators passes: the rule for a host matched by several patterns.
/// With no evaluators it passes nothing. Members that enforce nothing (report-only ones, or
/// composites made only of report-only ones, at any depth) never count as passing while an
/// enforced member exists (they would let every chain through); with only such members it
/// passes, as each of them does.
struct AnyOfTrustEvaluator: ServerTrustEvaluator, EvaluatorGroup {
    let evaluators: [any ServerTrustEvaluator]

    var members: [any ServerTrustEvaluator] { evaluators }

    /// Any one of them may pass, so every one must require a pinned key.
    var requiresPinnedKey: Bool { !evaluators.isEmpty && evaluators.allSatisfy(\.requiresPinnedKey) }

    func evaluate(_ chain: [Certificate], forHost host: String) throws {
        // Recursive: a composite holding only report-only evaluators never throws either.
        let enforced = evaluators.filter { !ReportOnlyEvaluator.enforcesNothing($0) }
        if enforced.isEmpty, !evaluators.isEmpty { return }
        var pins: [String] = []
        var otherFailure: (any Error)?
        for evaluator in enforced {
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
