import Foundation

/// A certificate the sandbox generated, as plain values: its DER encoding and the PEM text a
/// client's trust store or `strata-demo pin --cert` reads.
package struct GeneratedCertificate: Sendable, Hashable {
    /// The DER encoding.
    package let der: Data

    /// Creates the value from a DER encoding.
    package init(der: Data) { self.der = der }

    /// The certificate as one PEM `CERTIFICATE` block (RFC 7468 §2: 64-column base64, LF line ends).
    package var pem: String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }
}
