/// What a TLS server presents: its certificate, and the private key that proves it. The key
/// stays inside OpenSSL; only ``certificate`` is readable.
///
/// Made by ``CertificateAuthority/issueServerIdentity(dnsNames:ipAddresses:lifetime:)`` and handed
/// to ``SandboxServer``, which loads it into its TLS context at once.
package final class ServerIdentity {
    /// The server's certificate.
    package let certificate: GeneratedCertificate
    let x509: SignedX509
    let key: ECPrivateKey

    init(x509: SignedX509, key: ECPrivateKey) throws(SandboxOpenSSLError) {
        certificate = GeneratedCertificate(der: try x509.der())
        self.x509 = x509
        self.key = key
    }
}
