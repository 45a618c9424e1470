/// Evaluators that can say which pin let a chain through, for the `PinningEvent.trustEvaluated` event.
protocol MatchedPinReporting {
    /// The first configured pin found in `chain`, or nil.
    func matchedPin(in chain: [Certificate]) -> String?
}

extension PublicKeyPinningEvaluator: MatchedPinReporting {
    func matchedPin(in chain: [Certificate]) -> String? {
        chain.lazy.map(\.publicKeyPin).first { pins.contains($0) }?.description
    }
}

extension AnyOfTrustEvaluator: MatchedPinReporting {
    func matchedPin(in chain: [Certificate]) -> String? {
        MatchedPin.find(in: chain, evaluators: evaluators)
    }
}

extension CompositeTrustEvaluator: MatchedPinReporting {
    func matchedPin(in chain: [Certificate]) -> String? {
        MatchedPin.find(in: chain, evaluators: evaluators)
    }
}

/// Looks up the matched pin of any evaluator, nil when it cannot tell.
enum MatchedPin {
    static func of(_ evaluator: any ServerTrustEvaluator, chain: [Certificate]) -> String? {
        (evaluator as? any MatchedPinReporting)?.matchedPin(in: chain)
    }

    static func find(in chain: [Certificate], evaluators: [any ServerTrustEvaluator]) -> String? {
        evaluators.lazy.compactMap { of($0, chain: chain) }.first
    }
}
