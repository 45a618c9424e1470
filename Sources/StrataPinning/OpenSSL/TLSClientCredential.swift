import COpenSSL
import Strata

/// The OpenSSL objects of a ``ClientIdentity``: the certificate, its intermediates and the
/// private key (`X509`, `EVP_PKEY`), installed on each client `SSL *` of a host that has them.
///
/// The key is parsed from memory once and lives only in its `EVP_PKEY`: the temporary copies
/// of the PEM text and passphrase made for OpenSSL are zeroed after parsing, and OpenSSL is
/// never allowed to prompt on a terminal. The pointers sit behind a mutex so the class is
/// checked `Sendable`; after creation they are only read (`SSL_use_*` take references), and
/// OpenSSL 3 keys may sign on several connections at once.
final class TLSClientCredential: Sendable {
    /// Owned references: one `X509_up_ref` per certificate, the key as parsed.
    private struct Objects {
        let certificate: OpaquePointer
        let intermediates: [OpaquePointer]
        let key: OpaquePointer
    }

    private let objects: LockedValue<Objects>

    /// Reads `privateKeyPEM` (decrypting it with `passphrase`) and checks that it is the key of
    /// `chain`'s first certificate.
    ///
    /// - Throws: ``ClientIdentityError``.
    init(chain: [Certificate], privateKeyPEM: String, passphrase: String?) throws(ClientIdentityError) {
        _ = OpenSSLLibrary.initialized
        var x509s: [X509Certificate] = []
        for certificate in chain {
            do {
                x509s.append(try X509Certificate(der: certificate.der))
            } catch {
                throw .unreadableCertificateChain(error)
            }
        }
        guard let leaf = x509s.first else { throw .unreadableCertificateChain(.empty) }
        let key = try Self.privateKey(pem: privateKeyPEM, passphrase: passphrase)
        guard X509_check_private_key(leaf.pointer, key) == 1 else {
            OpenSSLErrorQueue.clear()
            EVP_PKEY_free(key)
            throw .keyDoesNotMatchCertificate(subject: leaf.subject())
        }
        for x509 in x509s { X509_up_ref(x509.pointer) }
        objects = LockedValue(Objects(certificate: leaf.pointer, intermediates: x509s.dropFirst().map(\.pointer), key: key))
    }

    deinit {
        objects.withLock { objects in
            EVP_PKEY_free(objects.key)
            X509_free(objects.certificate)
            for intermediate in objects.intermediates { X509_free(intermediate) }
        }
    }

    /// Makes `ssl` present this identity when its server asks for a client certificate.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/tls`` when OpenSSL refuses it.
    func install(on ssl: OpaquePointer) throws(TransportError) {
        // Read-only after init; each SSL_use_* / add1 call takes a reference of its own.
        let (certificate, key, intermediates) = objects.withLock { ($0.certificate, $0.key, $0.intermediates) }
        OpenSSLErrorQueue.clear()
        guard SSL_use_certificate(ssl, certificate) == 1, SSL_use_PrivateKey(ssl, key) == 1,
            intermediates.allSatisfy({ strata_SSL_add1_chain_cert(ssl, $0) == 1 })
        else {
            throw TransportError(
                .tls,
                message: "OpenSSL refused the client certificate: "
                    + OpenSSLErrorQueue.drain(fallback: "cannot use the client identity"))
        }
    }

    /// What the passphrase callback needs: the passphrase (nil for none) and whether OpenSSL asked.
    private struct PassphraseRequest {
        var passphrase: UnsafeBufferPointer<CChar>?
        var asked = false
    }

    /// Parses a private key from PEM text.
    private static func privateKey(pem: String, passphrase: String?) throws(ClientIdentityError) -> OpaquePointer {
        var text = Array(pem.utf8)
        var secret = passphrase.map { Array($0.utf8CString) }
        defer {
            wipe(&text)
            if secret != nil { wipe(&secret!) }
        }
        let request = UnsafeMutablePointer<PassphraseRequest>.allocate(capacity: 1)
        defer { request.deallocate() }
        OpenSSLErrorQueue.clear()
        let key: OpaquePointer? = text.withUnsafeBytes { pemBytes in
            func read(_ passphrase: UnsafeBufferPointer<CChar>?) -> OpaquePointer? {
                request.initialize(to: PassphraseRequest(passphrase: passphrase))
                guard let bio = BIO_new_mem_buf(pemBytes.baseAddress, Int32(clamping: pemBytes.count)) else { return nil }
                defer { BIO_free(bio) }
                // A callback of our own: without one, OpenSSL would prompt on the terminal.
                return PEM_read_bio_PrivateKey(
                    bio, nil,
                    { buffer, size, _, context in
                        guard let buffer, let request = context?.assumingMemoryBound(to: PassphraseRequest.self) else { return -1 }
                        request.pointee.asked = true
                        guard let passphrase = request.pointee.passphrase else { return -1 }
                        let length = min(Int(size), max(passphrase.count - 1, 0)) // without the NUL
                        for index in 0..<length { buffer[index] = passphrase[index] }
                        return Int32(length)
                    }, request)
            }
            guard let secret else { return read(nil) }
            return secret.withUnsafeBufferPointer { read($0) }
        }
        if let key {
            OpenSSLErrorQueue.clear()
            return key
        }
        let reason = OpenSSLErrorQueue.drain(fallback: "no private key found")
        guard request.pointee.asked else { throw .unreadablePrivateKey(reason: reason) }
        throw passphrase == nil ? .passphraseRequired : .wrongPassphrase
    }

    /// Overwrites `bytes` with zeros before they are freed.
    private static func wipe<Element: FixedWidthInteger>(_ bytes: inout [Element]) {
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
    }
}
