/// Runs an evaluator without enforcing it: for rolling pins out in stages (observe, then
/// enforce), as HPKP's `Report-Only` did.
///
/// The chain and host name are still fully verified by OpenSSL against the trust roots (an
/// untrusted, expired or misnamed certificate is refused as always); only the wrapped
/// evaluator's verdict is reported instead of enforced. When it refuses a new connection's
/// verified chain, ``PinningTransport`` reports ``PinningEvent/pinMismatchReported(host:servedPins:failure:)``
/// (with the pins of the chain the server served) to its observers, and the request proceeds.
/// Reports come once per new connection, not per request. Over HTTP/1.1, a connection opened by
/// a request nobody observed reports to the first observed request that reuses it; an HTTP/2
/// connection reports only to the request that opened it.
///
/// ```swift
/// PinningTransport(pinnedDomains: [
///     "api.example.com": try PublicKeyPinningEvaluator(pins: [current, backup]),            // enforced
///     "new.example.com": ReportOnlyEvaluator(try PublicKeyPinningEvaluator(pins: [next])),  // observed
/// ])
/// ```
///
/// Rules:
/// - It cannot be combined with ``TrustRoots/pinnedKeysOnly``: without chain validation nothing
///   would be checked at all (``PinningConfigurationError/reportOnlyWithPinnedKeysOnly(hostPattern:)``).
/// - When several `pinnedDomains` patterns match a host, enforced evaluators decide (any one of
///   them passing is enough) and report-only ones only report; with only report-only ones,
///   nothing is enforced.
/// - Inside a ``CompositeTrustEvaluator``, it reports and never refuses; the other members
///   still enforce.
public struct ReportOnlyEvaluator: ServerTrustEvaluator {
    /// The evaluator whose verdict is reported.
    public let evaluator: any ServerTrustEvaluator

    /// Creates a report-only version of `evaluator`.
    public init(_ evaluator: any ServerTrustEvaluator) {
        self.evaluator = evaluator
    }

    /// Never throws: a report-only evaluator never refuses a chain (``PinningTransport`` reports
    /// what the wrapped evaluator would have refused).
    public func evaluate(_ chain: [Certificate], forHost host: String) throws {}

    /// What every report-only evaluator inside `evaluator` (itself included) refuses in `chain`,
    /// one description per refusal, in order.
    static func failures(in evaluator: any ServerTrustEvaluator, chain: [Certificate], host: String) -> [String] {
        if let reportOnly = evaluator as? ReportOnlyEvaluator {
            do {
                try reportOnly.evaluator.evaluate(chain, forHost: host)
                return failures(in: reportOnly.evaluator, chain: chain, host: host)
            } catch {
                return [Self.summary(of: error)]
            }
        }
        guard let group = evaluator as? any EvaluatorGroup else { return [] }
        return group.members.flatMap { failures(in: $0, chain: chain, host: host) }
    }

    /// Whether `evaluator` is, or contains, a report-only evaluator.
    package static func isContained(in evaluator: any ServerTrustEvaluator) -> Bool {
        if evaluator is ReportOnlyEvaluator { return true }
        guard let group = evaluator as? any EvaluatorGroup else { return false }
        return group.members.contains(where: isContained)
    }

    /// Whether `evaluator` can never refuse a chain because everything in it is report-only: a
    /// report-only evaluator, or a composite whose members all enforce nothing (at any depth).
    /// Such an evaluator must not count as "passing" next to an enforced one. An empty composite
    /// never refuses either, so it enforces nothing; evaluator types Strata cannot look inside
    /// count as enforcing.
    static func enforcesNothing(_ evaluator: any ServerTrustEvaluator) -> Bool {
        if evaluator is ReportOnlyEvaluator { return true }
        guard let group = evaluator as? any EvaluatorGroup else { return false }
        return group.members.allSatisfy(enforcesNothing)
    }

    /// One line for an event: for a pin mismatch, the pins that were expected.
    private static func summary(of error: any Error) -> String {
        guard case let .pinMismatch(_, _, pins) = error as? ServerTrustError else { return String(describing: error) }
        return "no certificate of the verified chain matches the pins " + pins.joined(separator: ", ")
    }
}

extension ReportOnlyEvaluator: EvaluatorGroup {
    var members: [any ServerTrustEvaluator] { [evaluator] }
}

extension ReportOnlyEvaluator: MatchedPinReporting {
    /// The wrapped evaluator's matched pin: a report-only pin that matches is worth knowing.
    func matchedPin(in chain: [Certificate]) -> String? {
        MatchedPin.of(evaluator, chain: chain)
    }
}
