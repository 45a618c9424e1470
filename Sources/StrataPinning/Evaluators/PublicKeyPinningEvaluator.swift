/// Passes when the public key of any certificate in the verified chain matches any pin.
///
/// Pin the key of your leaf, of your intermediate or of your CA: a CA pin survives leaf
/// renewals, a leaf pin trusts the fewest parties. Always keep a backup pin for a key you hold
/// in reserve (RFC 7469 §4.3); `requiresBackupPin: true` enforces that.
/// ```swift
/// let evaluator = try PublicKeyPinningEvaluator(pins: [
///     "sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=",   // current key
///     "sha256/yIxaZTUrxHs5GSGHHlTW6UJ9tDef4/z+FjTuIAhRM1I=",   // backup
/// ], requiresBackupPin: true)
/// ```
public struct PublicKeyPinningEvaluator: ServerTrustEvaluator {
    /// The accepted pins, in the order given, without duplicates.
    public let pins: [SPKIPin]

    /// `true`: a chain passes only with a pinned key (the initializers refuse an empty list).
    public var requiresPinnedKey: Bool { !pins.isEmpty }

    /// Creates an evaluator from pin strings (`sha256/<base64>` or `pin-sha256="<base64>"`).
    ///
    /// - Parameters:
    ///   - pins: The accepted pins; one is enough unless `requiresBackupPin` is true.
    ///   - requiresBackupPin: When true, at least two distinct pins are required, so losing or
    ///     rotating one key cannot lock every client out.
    /// - Throws: ``PinningConfigurationError`` for a malformed pin, no pins, or a missing backup pin.
    public init(pins: [String], requiresBackupPin: Bool = false) throws(PinningConfigurationError) {
        var parsed: [SPKIPin] = []
        for pin in pins {
            parsed.append(try SPKIPin(pin))
        }
        try self.init(pins: parsed, requiresBackupPin: requiresBackupPin)
    }

    /// Creates an evaluator from pin values.
    ///
    /// - Throws: ``PinningConfigurationError/noPins`` or ``PinningConfigurationError/missingBackupPin(_:)``.
    public init(pins: [SPKIPin], requiresBackupPin: Bool = false) throws(PinningConfigurationError) {
        var unique: [SPKIPin] = []
        for pin in pins where !unique.contains(pin) {
            unique.append(pin)
        }
        guard let first = unique.first else { throw .noPins }
        if requiresBackupPin, unique.count < 2 { throw .missingBackupPin(first.description) }
        self.pins = unique
    }

    /// Passes if any certificate's SPKI pin equals any configured pin.
    ///
    /// - Throws: ``ServerTrustError/pinMismatch(host:chain:pins:)`` listing the chain and the pins.
    public func evaluate(_ chain: [Certificate], forHost host: String) throws {
        for certificate in chain where pins.contains(certificate.publicKeyPin) {
            return
        }
        throw ServerTrustError.pinMismatch(host: host, chain: chain, pins: pins.map(\.description))
    }
}
