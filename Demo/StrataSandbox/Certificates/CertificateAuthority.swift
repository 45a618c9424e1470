/// A private certificate authority made in memory at startup: an EC P-256 key and a
/// self-signed CA certificate, which issues short-lived server certificates.
///
/// Nothing is read from or written to disk, so a program that uses it runs from any directory,
/// and no private key exists anywhere but in this process's memory. A client trusts the CA by
/// its ``certificate`` (for example `TrustRoots.certificates([...])` or a `--ca` PEM file).
///
/// ```swift
/// let authority = try CertificateAuthority(name: "Strata Sandbox CA", lifetime: .seconds(86_400))
/// let identity = try authority.issueServerIdentity(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"],
///                                                  lifetime: .seconds(86_400))
/// let server = try SandboxServer(identity: identity)
/// ```
package final class CertificateAuthority {
    /// The organization every generated certificate names.
    package static let organization = "Strata Sandbox"

    /// The CA's self-signed certificate: the one trust anchor a client needs.
    package let certificate: GeneratedCertificate
    private let x509: SignedX509
    private let key: ECPrivateKey

    /// Generates the CA's key and self-signed certificate.
    ///
    /// - Parameters:
    ///   - name: The CA's common name.
    ///   - lifetime: How long the CA certificate is valid from now; keep it short, the CA only
    ///     lives as long as the process.
    /// - Throws: ``SandboxOpenSSLError`` when OpenSSL cannot generate or sign.
    package init(name: String, lifetime: Duration) throws(SandboxOpenSSLError) {
        key = try ECPrivateKey()
        x509 = try SignedX509(
            subject: [("O", Self.organization), ("CN", name)], role: .authority,
            publicKey: key, issuer: nil, lifetime: Self.seconds(lifetime))
        certificate = GeneratedCertificate(der: try x509.der())
    }

    /// Generates a key and issues a server certificate for it, signed by this CA.
    ///
    /// - Parameters:
    ///   - dnsNames: Host names the certificate is valid for; the first is also its common name.
    ///   - ipAddresses: IP literals the certificate is valid for, such as `127.0.0.1` or `::1`.
    ///   - lifetime: How long the certificate is valid from now.
    /// - Returns: The certificate and its key, ready for ``SandboxServer``.
    /// - Throws: ``SandboxOpenSSLError`` when OpenSSL cannot generate or sign.
    package func issueServerIdentity(
        dnsNames: [String], ipAddresses: [String],
        lifetime: Duration
    ) throws(SandboxOpenSSLError) -> ServerIdentity {
        let leafKey = try ECPrivateKey()
        let commonName = dnsNames.first ?? ipAddresses.first ?? "sandbox"
        let leaf = try SignedX509(
            subject: [("O", Self.organization), ("CN", commonName)],
            role: .server(dnsNames: dnsNames, ipAddresses: ipAddresses),
            publicKey: leafKey, issuer: (x509, key), lifetime: Self.seconds(lifetime))
        return try ServerIdentity(x509: leaf, key: leafKey)
    }

    private static func seconds(_ lifetime: Duration) -> Int {
        Int(clamping: max(1, lifetime.components.seconds))
    }
}
