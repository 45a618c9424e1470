import COpenSSL
import Foundation

/// An owned OpenSSL `X509` object. It never leaves the OpenSSL folder: callers get a
/// ``Certificate`` value from it.
final class X509Certificate {
    /// The owned pointer; freed in `deinit`.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a certificate owned by someone else (a chain, an SSL connection).
    convenience init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.init(owning: pointer)
    }

    /// Parses one DER certificate that must span all of `der`.
    ///
    /// - Throws: ``CertificateError/malformedDER(reason:)`` or ``CertificateError/trailingBytes(_:)``.
    convenience init(der: Data) throws(CertificateError) {
        guard !der.isEmpty else { throw .empty }
        guard der.count <= Certificate.maximumDERSize else {
            throw .tooLarge(bytes: der.count, limit: Certificate.maximumDERSize)
        }
        OpenSSLErrorQueue.clear()
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let certificate = d2i_X509(nil, &cursor, raw.count)
            if let cursor { consumed = cursor - base }
            return certificate
        }
        guard let parsed else {
            throw .malformedDER(reason: OpenSSLErrorQueue.drain(fallback: "not an X.509 certificate"))
        }
        self.init(owning: parsed)
        // A certificate followed by extra bytes is not the certificate the caller thinks it is.
        guard consumed == der.count else { throw .trailingBytes(der.count - consumed) }
    }

    deinit {
        X509_free(pointer)
    }

    /// The certificate's DER encoding.
    func derBytes() throws(CertificateError) -> Data {
        let pointer = self.pointer
        return Data(try Self.encodeDER(what: "the certificate") { i2d_X509(pointer, $0) })
    }

    /// SHA-256 of the DER SubjectPublicKeyInfo: the value RFC 7469 and OkHttp pin.
    func publicKeyPin() throws(CertificateError) -> SPKIPin {
        guard let publicKey = X509_get_X509_PUBKEY(pointer) else {
            throw .malformedDER(reason: "the certificate has no public key")
        }
        let spki = try Self.encodeDER(what: "the public key") { i2d_X509_PUBKEY(publicKey, $0) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        guard EVP_Digest(spki, spki.count, &digest, &digestLength, EVP_sha256(), nil) == 1,
            let pin = SPKIPin(sha256Digest: digest.prefix(Int(digestLength)))
        else {
            throw .malformedDER(reason: OpenSSLErrorQueue.drain(fallback: "SHA-256 failed"))
        }
        return pin
    }

    /// The subject as one RFC 2253 line, for example `CN=localhost,O=Strata Tests`.
    func subject() -> String {
        Self.oneLine(X509_get_subject_name(pointer))
    }

    /// The issuer as one RFC 2253 line.
    func issuer() -> String {
        Self.oneLine(X509_get_issuer_name(pointer))
    }

    /// The start of the validity period.
    func notBefore() throws(CertificateError) -> Date {
        try Self.date(X509_get0_notBefore(pointer), field: "notBefore")
    }

    /// The end of the validity period.
    func notAfter() throws(CertificateError) -> Date {
        try Self.date(X509_get0_notAfter(pointer), field: "notAfter")
    }

    /// Reads every field a ``Certificate`` keeps.
    func value() throws(CertificateError) -> Certificate {
        Certificate(
            der: try derBytes(), publicKeyPin: try publicKeyPin(), subject: subject(), issuer: issuer(),
            notBefore: try notBefore(), notAfter: try notAfter())
    }

    /// Runs an OpenSSL `i2d_*` encoder twice, as its contract asks: once for the length (with
    /// no output buffer), then into a buffer of exactly that length.
    private static func encodeDER(
        what: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(CertificateError) -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else {
            throw .malformedDER(reason: OpenSSLErrorQueue.drain(fallback: "cannot encode \(what)"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else {
            throw .malformedDER(reason: OpenSSLErrorQueue.drain(fallback: "cannot encode \(what)"))
        }
        return bytes
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = MemoryBIO() else { return "" }
        guard X509_NAME_print_ex(bio.pointer, name, 0, strata_XN_FLAG_RFC2253_UTF8()) >= 0 else { return "" }
        return bio.contents()
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?, field: String) throws(CertificateError) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
            throw .malformedDER(reason: "unreadable \(field) date")
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
