import Foundation

/// Why bytes or text could not be read as a ``Certificate``.
public indirect enum CertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input was empty.
    case empty
    /// The input exceeded the size a certificate may have: 100 KiB of DER, 10 MiB of PEM.
    case tooLarge(bytes: Int, limit: Int)
    /// The PEM text had no `CERTIFICATE` block; `otherBlocks` names the blocks it did have.
    case noCertificateFound(otherBlocks: [String])
    /// A PEM `-----BEGIN <label>-----` line had no matching `-----END <label>-----` line.
    case unterminatedPEMBlock(label: String)
    /// A PEM block's body was not valid base64.
    case invalidBase64(label: String)
    /// ``Certificate/init(pem:)`` needs exactly one certificate; the text held this many.
    case multipleCertificates(Int)
    /// The DER bytes were not an X.509 certificate; `reason` is OpenSSL's text.
    case malformedDER(reason: String)
    /// A complete certificate was followed by this many extra bytes.
    case trailingBytes(Int)
    /// The error happened in the given certificate block of a bundle (1-based).
    case inBlock(Int, CertificateError)

    /// A sentence saying what was wrong with the input and what to do.
    public var description: String {
        switch self {
        case .empty:
            "The certificate input is empty."
        case let .tooLarge(bytes, limit):
            "The certificate input is \(bytes) bytes, more than the \(limit)-byte limit."
        case let .noCertificateFound(otherBlocks) where otherBlocks.isEmpty:
            "No '-----BEGIN CERTIFICATE-----' block found; expected PEM text."
        case let .noCertificateFound(otherBlocks):
            "No CERTIFICATE block found (found: \(otherBlocks.joined(separator: ", "))); a key is not a certificate."
        case let .unterminatedPEMBlock(label):
            "The PEM block '\(label)' has no '-----END \(label)-----' line; the text looks truncated."
        case let .invalidBase64(label):
            "The body of the PEM block '\(label)' is not valid base64."
        case let .multipleCertificates(count) where count == 0:
            "The PEM text holds no certificate."
        case let .multipleCertificates(count):
            "The PEM text holds \(count) certificates; use Certificate.certificates(pemBundle:) to read a bundle."
        case let .malformedDER(reason):
            "The bytes are not a valid X.509 certificate (\(reason))."
        case let .trailingBytes(count):
            "A certificate is followed by \(count) unexpected bytes."
        case let .inBlock(index, error):
            "Certificate \(index) of the bundle: \(error.description)"
        }
    }
}

extension CertificateError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
