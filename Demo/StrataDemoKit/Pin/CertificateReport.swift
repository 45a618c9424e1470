import Foundation
import StrataPinning

/// What `strata-demo pin` prints about certificates: each one's pin, subject and expiry, as
/// lines for a person or as JSON for a script, and a warning for each that expires soon.
///
/// Names are shown as ``TerminalText`` escapes them: OpenSSL escapes C0 controls and DEL in a
/// name but keeps UTF-8 readable, and so passes C1 controls (U+009B is a CSI) through.
struct CertificateReport {
    /// Certificates expiring within this many days get a warning.
    static let expiryWarningDays = 30
    private static let secondsPerDay = 86_400.0

    /// One certificate and where it came from.
    struct Entry {
        let certificate: Certificate
        /// The file it was read from; `nil` for a server's chain.
        let file: String?
    }

    let entries: [Entry]
    /// Whether the entries are one chain, leaf first.
    let isChain: Bool
    /// The moment expiry is measured from.
    let now: Date

    /// Two lines per certificate: `sha256/…: <subject>` (as `PublicKeyPinningEvaluator(pins:)` and
    /// pinning failures write it), then its expiry, indented.
    func lines(output: DemoOutput) -> [String] {
        entries.flatMap { entry in
            let certificate = entry.certificate
            return [
                output.styled(certificate.spkiPin, .green) + ": " + Self.shown(certificate.subject),
                "    valid until \(Self.timestamp(certificate.notAfter)): \(expiryPhrase(certificate))"
                    + (entry.file.map { ", from \($0)" } ?? ""),
            ]
        }
    }

    /// One sentence per certificate that is expired, not yet valid, or expires within
    /// ``expiryWarningDays`` days.
    var warnings: [String] {
        entries.compactMap { entry in
            let certificate = entry.certificate
            if certificate.notBefore > now {
                return "\(Self.shown(certificate.subject)) is not valid before \(Self.timestamp(certificate.notBefore))."
            }
            guard daysLeft(certificate) < Self.expiryWarningDays else { return nil }
            return "\(Self.shown(certificate.subject)) \(expiryPhrase(certificate)) (\(Self.timestamp(certificate.notAfter))); "
                + "replace it before you rely on it."
        }
    }

    /// The report as a JSON document (keys sorted):
    /// `{"chain": true, "certificates": [{"pin": …, "subject": …, "issuer": …, "notBefore": …,
    /// "notAfter": …, "daysLeft": …, "expiresSoon": …, "file": …}]}`.
    func json() -> Data {
        struct Document: Encodable {
            var chain: Bool
            var certificates: [Item]
        }
        struct Item: Encodable {
            var pin, subject, issuer, notBefore, notAfter: String
            var daysLeft: Int
            var expiresSoon: Bool
            var file: String?
        }
        let items = entries.map { entry in
            let certificate = entry.certificate
            return Item(
                pin: certificate.spkiPin, subject: Self.shown(certificate.subject), issuer: Self.shown(certificate.issuer),
                notBefore: Self.timestamp(certificate.notBefore), notAfter: Self.timestamp(certificate.notAfter),
                daysLeft: daysLeft(certificate), expiresSoon: daysLeft(certificate) < Self.expiryWarningDays,
                file: entry.file)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Document(chain: isChain, certificates: items))) ?? Data("{}".utf8)
    }

    /// Whole days from ``now`` until the certificate expires; negative once it has.
    func daysLeft(_ certificate: Certificate) -> Int {
        Int((certificate.notAfter.timeIntervalSince(now) / Self.secondsPerDay).rounded(.down))
    }

    private func expiryPhrase(_ certificate: Certificate) -> String {
        let seconds = certificate.notAfter.timeIntervalSince(now)
        let days = Int((abs(seconds) / Self.secondsPerDay).rounded(.down))
        let count = days == 0 ? "less than a day" : "\(days) day\(days == 1 ? "" : "s")"
        return seconds < 0 ? "expired \(count) ago" : "expires in \(count)"
    }

    /// A certificate's name as printed.
    private static func shown(_ name: String) -> String { TerminalText.escaping(name) }

    /// `2026-06-01T12:00:00Z`.
    private static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
