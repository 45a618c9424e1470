extension PinnedDomains {
    /// Refuses evaluators that would check nothing: an empty group anywhere inside one, and,
    /// with ``TrustRoots/pinnedKeysOnly`` (no chain validation), a report-only evaluator anywhere
    /// inside one or any evaluator that does not require a pinned key.
    ///
    /// - Throws: ``PinningConfigurationError/emptyEvaluator(hostPattern:)``,
    ///   ``PinningConfigurationError/reportOnlyWithPinnedKeysOnly(hostPattern:)`` or
    ///   ``PinningConfigurationError/pinnedKeysOnlyWithoutPins(hostPattern:)`` for the first
    ///   offending pattern in sorted order.
    func validate(for roots: TrustRoots) throws(PinningConfigurationError) {
        for entry in entries {
            let pattern = entry.pattern.description
            if Self.containsEmptyGroup(entry.evaluator) { throw .emptyEvaluator(hostPattern: pattern) }
            if !roots.verifiesChain, ReportOnlyEvaluator.isContained(in: entry.evaluator) {
                throw .reportOnlyWithPinnedKeysOnly(hostPattern: pattern)
            }
            if !roots.verifiesChain, !entry.evaluator.requiresPinnedKey {
                throw .pinnedKeysOnlyWithoutPins(hostPattern: pattern)
            }
        }
    }

    private static func containsEmptyGroup(_ evaluator: any ServerTrustEvaluator) -> Bool {
        guard let group = evaluator as? any EvaluatorGroup else { return false }
        return group.members.isEmpty || group.members.contains(where: containsEmptyGroup)
    }
}
