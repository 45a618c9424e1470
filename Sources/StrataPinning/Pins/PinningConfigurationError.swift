import Foundation

/// A pinning configuration that cannot be used: thrown when pins, host patterns or evaluators
/// are created, so a mistake fails at startup rather than as a pinning failure in production.
public enum PinningConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A pin string that is not `sha256/<base64>` of 32 bytes.
    case malformedPin(String, reason: String)
    /// A `pinnedDomains` key that is not a valid host pattern.
    case malformedHostPattern(String, reason: String)
    /// An evaluator was given no pins at all.
    case noPins
    /// The strict option needs a backup pin (RFC 7469 §4.3) and only this one pin was given.
    case missingBackupPin(String)
    /// ``TrustRoots/certificates(_:)`` was given an empty list, which would trust nothing.
    case noTrustedCertificates
    /// OpenSSL could not build the trust store; `reason` is its text.
    case trustStoreFailed(reason: String)
    /// The evaluator for a `pinnedDomains` pattern is (or contains) a `CompositeTrustEvaluator`
    /// with no evaluators, which would check nothing.
    case emptyEvaluator(hostPattern: String)
    /// ``TrustRoots/pinnedKeysOnly`` was chosen, but the evaluator for this pattern does not
    /// require a pinned key (``ServerTrustEvaluator/requiresPinnedKey``), so nothing would be checked.
    case pinnedKeysOnlyWithoutPins(hostPattern: String)
    /// The evaluator for this pattern is (or contains) a ``ReportOnlyEvaluator`` while the roots
    /// are ``TrustRoots/pinnedKeysOnly``: with no chain validation, a check that never refuses
    /// would accept any server.
    case reportOnlyWithPinnedKeysOnly(hostPattern: String)
    /// ``PinningTransport/Configuration/clientIdentities`` has an identity for a pattern that is
    /// not a `pinnedDomains` key: requests to unpinned hosts go to the inner transport, which would
    /// never present it.
    case clientIdentityWithoutPins(hostPattern: String)
    /// A ``ProxyConfiguration`` URL that cannot be used; `url` is shown without its credentials.
    case malformedProxy(url: String, reason: String)

    /// A sentence naming the bad value and how to fix it.
    public var description: String {
        switch self {
        case let .malformedPin(pin, reason):
            "Malformed pin '\(Self.shortened(pin))': \(reason)."
        case let .malformedHostPattern(pattern, reason):
            "Malformed host pattern '\(Self.shortened(pattern))': \(reason). Use 'api.example.com', "
                + "'*.example.com' (one extra label) or '**.example.com' (any depth, apex included)."
        case .noPins:
            "No pins given; a pinning evaluator needs at least one 'sha256/<base64>' pin."
        case let .missingBackupPin(pin):
            "Only one pin (\(pin)) was given but a backup pin is required: add the pin of a key you "
                + "hold in reserve, so the server key can be rotated without locking clients out."
        case .noTrustedCertificates:
            "TrustRoots.certificates([]) trusts no certificate; give the private CA's certificate."
        case let .trustStoreFailed(reason):
            "Cannot build the TLS trust store (\(reason))."
        case let .emptyEvaluator(pattern):
            "The evaluator for '\(Self.shortened(pattern))' is an empty CompositeTrustEvaluator, which checks nothing; "
                + "give it at least one evaluator, such as a PublicKeyPinningEvaluator."
        case let .pinnedKeysOnlyWithoutPins(pattern):
            "TrustRoots.pinnedKeysOnly turns chain validation off, so the evaluator is the only check, but the "
                + "evaluator for '\(Self.shortened(pattern))' pins no key; use a PublicKeyPinningEvaluator (or a "
                + "CompositeTrustEvaluator containing one), or verify chains with .system or .certificates([ca])."
        case let .reportOnlyWithPinnedKeysOnly(pattern):
            "The evaluator for '\(Self.shortened(pattern))' is report-only, but TrustRoots.pinnedKeysOnly turns chain "
                + "validation off, so nothing would be checked at all; report-only pins need chains verified by "
                + ".system or .certificates([ca]), or enforce the pins for this host."
        case let .clientIdentityWithoutPins(pattern):
            "There is a client identity for '\(Self.shortened(pattern))', which is not a pinnedDomains key; only "
                + "pinned hosts get their own TLS connections (and so a client certificate): add the pattern to "
                + "pinnedDomains, or use the same pattern spelling in both."
        case let .malformedProxy(url, reason):
            "Cannot use the proxy '\(Self.shortened(url))': \(reason)."
        }
    }

    /// Echoes at most 100 characters of a bad value, so a huge input cannot flood a log.
    private static func shortened(_ text: String) -> String {
        text.count <= 100 ? text : text.prefix(100) + "…"
    }
}

extension PinningConfigurationError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
