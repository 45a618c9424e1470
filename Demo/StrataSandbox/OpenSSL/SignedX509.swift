import COpenSSL
import Foundation

/// An X.509 v3 certificate built and signed in memory, owning its `X509`. Only its DER leaves
/// this folder (as ``GeneratedCertificate``); the object itself goes to a ``ServerTLSContext``.
final class SignedX509 {
    /// What the certificate is for; decides its extensions (RFC 5280 §4.2).
    enum Role {
        /// A CA that signs leaves: `basicConstraints CA:TRUE, pathlen:0`, `keyCertSign`.
        case authority
        /// A TLS server: `CA:FALSE`, `digitalSignature`, `serverAuth`, and the names clients
        /// check in `subjectAltName` (RFC 6125 §6.4.4: clients ignore the CN when a SAN is present).
        case server(dnsNames: [String], ipAddresses: [String])
    }

    /// Clock skew tolerated at the start of the validity period, in seconds.
    static let backdating = 60

    /// The owned certificate; freed in `deinit`.
    let pointer: OpaquePointer

    /// Builds and signs a certificate.
    ///
    /// - Parameters:
    ///   - subject: Name fields in order, most general first, such as `[("O", "Strata Sandbox"), ("CN", "localhost")]`.
    ///   - role: What the certificate may be used for.
    ///   - publicKey: The key the certificate certifies.
    ///   - issuer: The issuing CA's certificate and key; `nil` signs the certificate with `publicKey` itself.
    ///   - lifetime: Seconds from now until the certificate expires.
    /// - Throws: ``SandboxOpenSSLError`` naming the step that failed.
    init(
        subject: [(field: String, value: String)], role: Role, publicKey: ECPrivateKey,
        issuer: (certificate: SignedX509, key: ECPrivateKey)?, lifetime: Int
    ) throws(SandboxOpenSSLError) {
        guard let certificate = X509_new() else { throw .drained("allocate a certificate") }
        pointer = certificate
        let name = try Self.name(subject)
        defer { X509_NAME_free(name) }
        guard X509_set_version(certificate, 2) == 1, // 2 means v3: extensions follow
            Self.setRandomSerial(certificate),
            X509_gmtime_adj(X509_getm_notBefore(certificate), -Self.backdating) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), lifetime) != nil,
            X509_set_subject_name(certificate, name) == 1,
            X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? name) == 1,
            X509_set_pubkey(certificate, publicKey.pointer) == 1
        else {
            throw .drained("fill in the certificate for \(subject.last?.value ?? "?")")
        }
        try addExtensions(for: role, issuer: issuer?.certificate)
        guard X509_sign(certificate, (issuer?.key ?? publicKey).pointer, EVP_sha256()) > 0 else {
            throw .drained("sign the certificate for \(subject.last?.value ?? "?")")
        }
    }

    deinit { X509_free(pointer) }

    /// The DER encoding.
    func der() throws(SandboxOpenSSLError) -> Data {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { throw .drained("encode the certificate") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else { throw .drained("encode the certificate") }
        return Data(bytes)
    }

    private static func name(_ fields: [(field: String, value: String)]) throws(SandboxOpenSSLError) -> OpaquePointer {
        guard let name = X509_NAME_new() else { throw .drained("allocate a name") }
        for (field, value) in fields where X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) != 1 {
            X509_NAME_free(name)
            throw .drained("add \(field)=\(value) to a name")
        }
        return name
    }

    /// A positive random 127-bit serial: unique per certificate (RFC 5280 §4.1.2.2 allows 20 octets).
    private static func setRandomSerial(_ certificate: OpaquePointer) -> Bool {
        guard let number = BN_new() else { return false }
        defer { BN_free(number) }
        return BN_rand(number, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1
            && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil
    }

    private func addExtensions(for role: Role, issuer: SignedX509?) throws(SandboxOpenSSLError) {
        // Subject key identifier first: a self-signed CA's authority key identifier refers to it.
        var extensions: [(nid: Int32, value: String)] = [(NID_subject_key_identifier, "hash")]
        switch role {
        case .authority:
            extensions += [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
            ]
        case .server(let dnsNames, let ipAddresses):
            let names = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
            extensions += [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, names.joined(separator: ",")),
            ]
        }
        extensions.append((NID_authority_key_identifier, "keyid:always"))
        for (nid, value) in extensions {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, issuer?.pointer ?? pointer, pointer, nil, nil, 0)
            guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw .drained("make the extension \(value)")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(pointer, made, -1) == 1 else { throw .drained("add the extension \(value)") }
        }
    }
}
