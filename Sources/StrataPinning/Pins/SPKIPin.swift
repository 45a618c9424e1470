import Foundation

/// A public-key pin: the SHA-256 of a DER SubjectPublicKeyInfo (RFC 7469 §2.4), written
/// `sha256/<base64>` as OkHttp does.
///
/// Parsing accepts `sha256/<base64>` and RFC 7469's `pin-sha256="<base64>"`, and rejects
/// anything that does not decode to exactly 32 bytes, so a typo fails at configuration time and
/// not as a mysterious pinning failure in production. Equality runs in constant time.
public struct SPKIPin: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes in a SHA-256 digest.
    package static let digestLength = 32
    /// The longest text ``init(_:)`` looks at; a valid pin is at most 56 characters.
    static let maximumTextLength = 256

    /// The 32 digest bytes.
    public let sha256: [UInt8]

    /// Parses `sha256/<base64>` or `pin-sha256="<base64>"` (surrounding whitespace ignored; the
    /// prefix is matched case-insensitively, the base64 is not).
    ///
    /// - Throws: ``PinningConfigurationError/malformedPin(_:reason:)`` naming the problem: an
    ///   unknown algorithm, invalid base64, a digest that is not 32 bytes, or base64 that is not
    ///   in its canonical form (nonzero unused bits in the last character; the message gives
    ///   the canonical pin).
    public init(_ text: String) throws(PinningConfigurationError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= Self.maximumTextLength else {
            throw .malformedPin(text, reason: "longer than \(Self.maximumTextLength) characters")
        }
        let encoded = try Self.base64Part(of: trimmed, original: text)
        guard let digest = Data(base64Encoded: encoded) else {
            throw .malformedPin(text, reason: "'\(encoded)' is not valid base64 (standard alphabet, with '=' padding)")
        }
        guard digest.count == Self.digestLength else {
            throw .malformedPin(text, reason: "decodes to \(digest.count) bytes; a SHA-256 pin is 32 bytes")
        }
        // Base64 leaves unused bits in the last character; decoders ignore them, so several
        // spellings decode to one digest. Only the canonical one is accepted, so the pin
        // configured is the pin compared, printed and listed in a failure (RFC 4648 §3.5).
        let canonical = digest.base64EncodedString()
        guard encoded == canonical else {
            throw .malformedPin(
                text,
                reason: "'\(encoded)' is not canonical base64: its last character carries bits "
                    + "that no digest has; the pin it decodes to is written sha256/\(canonical)")
        }
        sha256 = Array(digest)
    }

    /// Creates a pin from a SHA-256 digest, or returns nil unless it is exactly 32 bytes.
    public init?(sha256Digest: some Collection<UInt8>) {
        guard sha256Digest.count == Self.digestLength else { return nil }
        sha256 = Array(sha256Digest)
    }

    /// `sha256/<base64>`.
    public var description: String { "sha256/" + Data(sha256).base64EncodedString() }

    /// The RFC 7469 form, `pin-sha256="<base64>"`.
    public var rfc7469: String { "pin-sha256=\"\(Data(sha256).base64EncodedString())\"" }

    /// Compares digests in constant time: every byte is examined whatever the first difference.
    public static func == (lhs: SPKIPin, rhs: SPKIPin) -> Bool {
        guard lhs.sha256.count == rhs.sha256.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.sha256.indices {
            difference |= lhs.sha256[index] ^ rhs.sha256[index]
        }
        return difference == 0
    }

    /// Hashes the digest bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sha256)
    }

    private static func base64Part(of text: String, original: String) throws(PinningConfigurationError) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("sha256/") {
            return String(text.dropFirst("sha256/".count))
        }
        if lowered.hasPrefix("pin-sha256=") {
            // RFC 7469 §2.1: the value is a quoted-string; directive names are case-insensitive.
            let value = text.dropFirst("pin-sha256=".count)
            guard value.count >= 2, value.first == "\"", value.last == "\"" else {
                throw .malformedPin(original, reason: "the pin-sha256 value must be in double quotes")
            }
            return String(value.dropFirst().dropLast())
        }
        if let slash = text.firstIndex(of: "/"), text[..<slash].allSatisfy({ $0.isLetter || $0.isNumber }) {
            throw .malformedPin(original, reason: "unsupported algorithm '\(text[..<slash])'; only sha256 pins are accepted")
        }
        throw .malformedPin(original, reason: "expected 'sha256/<base64>' or 'pin-sha256=\"<base64>\"'")
    }
}
