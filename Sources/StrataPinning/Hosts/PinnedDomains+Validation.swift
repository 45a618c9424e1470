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
            try Self.validate(entry.evaluator, hostPattern: entry.pattern.description, roots: roots)
        }
    }

    /// The rules an evaluator meets whatever connection it guards (a pinned host here, a
    /// `rediss://` server in StrataRedis): no empty group (it would accept nothing, or anything);
    /// and with ``TrustRoots/pinnedKeysOnly``, where nothing else verifies the server, an
    /// evaluator that requires a pinned key and holds no report-only part (which accepts any key).
    ///
    /// - Parameter evaluator: `nil` when the caller checks nothing beyond the chain.
    /// - Throws: ``PinningConfigurationError`` naming `hostPattern`.
    package static func validate(
        _ evaluator: (any ServerTrustEvaluator)?, hostPattern: String,
        roots: TrustRoots
    ) throws(PinningConfigurationError) {
        if let evaluator, containsEmptyGroup(evaluator) { throw .emptyEvaluator(hostPattern: hostPattern) }
        guard !roots.verifiesChain else { return }
        if let evaluator, ReportOnlyEvaluator.isContained(in: evaluator) {
            throw .reportOnlyWithPinnedKeysOnly(hostPattern: hostPattern)
        }
        if !(evaluator?.requiresPinnedKey ?? false) { throw .pinnedKeysOnlyWithoutPins(hostPattern: hostPattern) }
    }

    private static func containsEmptyGroup(_ evaluator: any ServerTrustEvaluator) -> Bool {
        guard let group = evaluator as? any EvaluatorGroup else { return false }
        return group.members.isEmpty || group.members.contains(where: containsEmptyGroup)
    }
}
