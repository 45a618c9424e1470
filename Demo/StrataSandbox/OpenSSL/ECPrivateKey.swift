import COpenSSL

/// An EC P-256 key pair generated in memory, owning its `EVP_PKEY`. The private key never
/// leaves OpenSSL: it is not encoded, written or logged.
final class ECPrivateKey {
    /// The owned key; freed in `deinit`.
    let pointer: OpaquePointer

    /// Generates a new P-256 (prime256v1) key from OpenSSL's default random source.
    ///
    /// - Throws: ``SandboxOpenSSLError`` when OpenSSL cannot generate the key.
    init() throws(SandboxOpenSSLError) {
        _ = OpenSSLLibrary.initialized
        // EVP_EC_gen is a variadic macro Swift cannot call; this is its expansion step by step.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .drained("create an EC key context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else {
            throw .drained("generate an EC P-256 key")
        }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }
}
