/// A client certificate and its private key, presented to a pinned server that asks for one
/// (mutual TLS). Configure one per pinned host pattern in
/// ``PinningTransport/Configuration/clientIdentities``.
///
/// The private key is read once, into an OpenSSL key object, and stays there: this value holds
/// no copy of the PEM text or the passphrase, and its description, `dump` and every error name
/// only the certificate (its subject and key pin). TLS sends the certificate during the
/// handshake, when the server asks: after OpenSSL verified the server's chain and name, but
/// before the pin check, which needs the finished handshake. The certificate is public data
/// and the key never leaves; the handshake's signature cannot be replayed elsewhere (see
/// SECURITY.md, "Client certificates").
///
/// ```swift
/// let identity = try ClientIdentity(certificateChainPEM: String(contentsOfFile: "client.pem", encoding: .utf8),
///                                   privateKeyPEM: String(contentsOfFile: "client.key", encoding: .utf8))
/// var configuration = PinningTransport.Configuration()
/// configuration.clientIdentities = ["payments.internal.example": identity]
/// ```
public struct ClientIdentity: Sendable, CustomStringConvertible {
    /// The client certificate (the leaf).
    public let certificate: Certificate
    /// The certificates sent after the leaf, so the server can build the chain to its CA.
    public let intermediates: [Certificate]
    /// The OpenSSL certificate and key objects.
    let credential: TLSClientCredential

    /// Reads an identity from PEM text.
    ///
    /// - Parameters:
    ///   - certificateChainPEM: The client certificate first, then any intermediates
    ///     (`CERTIFICATE` blocks; other blocks are ignored).
    ///   - privateKeyPEM: The certificate's private key: `PRIVATE KEY` (PKCS #8), `ENCRYPTED
    ///     PRIVATE KEY`, or the traditional `EC`/`RSA PRIVATE KEY` forms, encrypted or not.
    ///   - passphrase: The key's passphrase, for an encrypted key. Never asked for on a terminal.
    /// - Throws: ``ClientIdentityError``: an unreadable chain or key, a missing or wrong
    ///   passphrase, or a key that is not the certificate's.
    public init(certificateChainPEM: String, privateKeyPEM: String, passphrase: String? = nil) throws(ClientIdentityError) {
        let chain: [Certificate]
        do {
            chain = try Certificate.certificates(pemBundle: certificateChainPEM)
        } catch {
            throw .unreadableCertificateChain(error)
        }
        credential = try TLSClientCredential(chain: chain, privateKeyPEM: privateKeyPEM, passphrase: passphrase)
        certificate = chain[0]
        intermediates = Array(chain.dropFirst())
    }

    /// `client certificate <subject> (key sha256/…)`: never the key.
    public var description: String {
        "client certificate \(certificate.subject) (key \(certificate.spkiPin))"
    }
}
