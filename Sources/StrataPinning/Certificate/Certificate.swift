import Foundation

/// An X.509 certificate, parsed once and kept as plain Swift values.
///
/// Use it to pin whole certificates (``CertificatePinningEvaluator``), to trust a private CA
/// (``TrustRoots/certificates(_:)``), or to find the pin of a certificate you hold:
/// ```swift
/// let certificate = try Certificate(pem: String(contentsOfFile: "server.pem", encoding: .utf8))
/// print(certificate.spkiPin)   // sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=
/// ```
/// The parsers face untrusted bytes: malformed, truncated, empty or oversized input throws a
/// ``CertificateError`` and never crashes. Two certificates are equal when their DER is equal.
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The largest DER certificate accepted (100 KiB). Real certificates are 0.5–8 KiB; the limit
    /// only bounds work on hostile input.
    package static let maximumDERSize = 100 * 1024
    /// The largest PEM text accepted (10 MiB), enough for a full system CA bundle (~250 KiB).
    package static let maximumPEMSize = 10 * 1024 * 1024

    /// The certificate's DER encoding, exactly as parsed.
    public let der: Data
    /// The SHA-256 of the certificate's SubjectPublicKeyInfo, as a value.
    public let publicKeyPin: SPKIPin
    /// The subject as one RFC 2253 line, most specific first, for example `CN=localhost,O=Strata Tests`.
    public let subject: String
    /// The issuer as one RFC 2253 line.
    public let issuer: String
    /// The first moment the certificate is valid.
    public let notBefore: Date
    /// The last moment the certificate is valid.
    public let notAfter: Date

    /// The pin of this certificate's public key, `sha256/<base64>`: the same value as
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    public var spkiPin: String { publicKeyPin.description }

    /// `sha256/<base64>: <subject>`, the line used in pinning failures.
    public var description: String { "\(spkiPin): \(subject)" }

    /// Creates a certificate from its DER encoding.
    ///
    /// - Parameter der: One DER-encoded X.509 certificate, with nothing after it.
    /// - Throws: ``CertificateError`` when `der` is empty, too large, not a certificate, not in
    ///   DER (the one encoding X.509 allows), or has bytes after the certificate.
    public init(der: Data) throws(CertificateError) {
        let certificate = try X509Certificate(der: der).value()
        // OpenSSL also reads encodings that are not DER (found by fuzzing: a signature BIT STRING
        // with nonzero padding bits). `der` is OpenSSL's re-encoding, so such bytes would become
        // a certificate with other bytes than the caller's: refused, so one certificate has one
        // encoding and ``der`` is exactly what was read.
        guard certificate.der == der else {
            let offset =
                zip(certificate.der, der).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(certificate.der.count, der.count)
            throw .malformedDER(reason: "not in DER: the canonical encoding differs from byte \(offset) on")
        }
        self = certificate
    }

    /// Creates a certificate from a PEM text holding exactly one `CERTIFICATE` block.
    ///
    /// Text outside the block (comments, `openssl x509 -text` output) is ignored. For a bundle
    /// of several certificates use ``certificates(pemBundle:)``.
    /// - Throws: ``CertificateError`` when there is no certificate, more than one, or a block is malformed.
    public init(pem: String) throws(CertificateError) {
        let all = try Self.certificates(pemBundle: pem)
        guard all.count == 1, let only = all.first else { throw .multipleCertificates(all.count) }
        self = only
    }

    /// Parses every `CERTIFICATE` block of a PEM bundle, in order (for example a chain file or a
    /// CA bundle).
    ///
    /// - Returns: At least one certificate.
    /// - Throws: ``CertificateError`` when the text is empty or too large, holds no certificate,
    ///   or any block is malformed (one bad block fails the whole bundle).
    public static func certificates(pemBundle pem: String) throws(CertificateError) -> [Certificate] {
        let blocks = try PEMDocument.blocks(in: pem)
        let certificateBlocks = blocks.filter { $0.label == PEMDocument.certificateLabel }
        guard !certificateBlocks.isEmpty else {
            throw .noCertificateFound(otherBlocks: blocks.map(\.label))
        }
        var certificates: [Certificate] = []
        for (index, block) in certificateBlocks.enumerated() {
            do {
                certificates.append(try Certificate(der: block.der))
            } catch {
                throw .inBlock(index + 1, error)
            }
        }
        return certificates
    }

    /// Creates a certificate from fields already read by OpenSSL.
    init(der: Data, publicKeyPin: SPKIPin, subject: String, issuer: String, notBefore: Date, notAfter: Date) {
        self.der = der
        self.publicKeyPin = publicKeyPin
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Compares the DER encodings; every other field is derived from them.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.der == rhs.der
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(der)
    }
}
