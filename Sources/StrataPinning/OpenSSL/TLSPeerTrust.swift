import COpenSSL

/// The trust steps of a TLS client connection, for the transport's TLS code: before the
/// handshake, name the host; after it, and before any request byte, decide whether the peer
/// is trusted. Pins are only ever checked against OpenSSL's verified chain.
enum TLSPeerTrust {
    /// Sets SNI (except for IP literals, RFC 6066 §3) and the name the leaf must carry.
    /// Call on a fresh `SSL *` whose context was set up by ``X509TrustStore/configureVerification(of:)``.
    ///
    /// `host` must already be in ``CanonicalHost`` form: SNI takes a C string, so a host that
    /// could differ from what OpenSSL sees (a NUL, a trailing dot, another spelling of an IP) is
    /// refused here too, whatever the caller checked.
    ///
    /// - Throws: ``ServerTrustError/hostnameMismatch(host:code:reason:)`` if the host is not
    ///   canonical or OpenSSL rejects the name.
    static func expect(host: String, on ssl: OpaquePointer) throws(ServerTrustError) {
        guard let canonical = try? CanonicalHost(host), canonical.name == host else {
            throw .hostnameMismatch(host: host, code: -1, reason: "not a canonical host name")
        }
        OpenSSLErrorQueue.clear()
        if !canonical.isIPAddress {
            guard strata_SSL_set_tlsext_host_name(ssl, host) == 1 else {
                throw .hostnameMismatch(
                    host: host, code: -1,
                    reason: OpenSSLErrorQueue.drain(fallback: "cannot send this name as SNI"))
            }
        }
        guard let parameters = SSL_get0_param(ssl), name(canonical, on: parameters) else {
            throw .hostnameMismatch(
                host: host, code: -1,
                reason: OpenSSLErrorQueue.drain(fallback: "not a valid host name"))
        }
    }

    /// The host-name flags of every check: `f*.example.com` in a certificate covers nothing
    /// (RFC 6125 §7.2 discourages partial wildcards; `*.example.com` still works), and the
    /// subject's CN never stands in for a missing subjectAltName (RFC 6125 §6.4.4, what browsers
    /// do): without the flag OpenSSL accepts a SAN-less `CN=localhost` certificate for `localhost`.
    static let hostFlags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS) | UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)

    /// Sets the name the leaf must carry on `parameters`: an IP address against IP SANs only, a
    /// DNS name with an explicit length (never read as a C string).
    static func name(_ host: CanonicalHost, on parameters: OpaquePointer) -> Bool {
        X509_VERIFY_PARAM_set_hostflags(parameters, hostFlags)
        return host.isIPAddress
            ? X509_VERIFY_PARAM_set1_ip_asc(parameters, host.name) == 1
            : X509_VERIFY_PARAM_set1_host(parameters, host.name, host.name.utf8.count) == 1
    }

    /// The chain an evaluator must see after a completed handshake.
    ///
    /// When `roots` verify chains: the verify result must be `X509_V_OK` and the chain is
    /// `SSL_get0_verified_chain` (built from trust anchors, never the peer's raw list). With
    /// ``TrustRoots/pinnedKeysOnly``: just the leaf, whose key the handshake proved.
    ///
    /// - Throws: ``ServerTrustError`` for a failed verification or a missing chain (for example
    ///   a resumed session without one: never treat that as a pass).
    static func chainToEvaluate(on ssl: OpaquePointer, host: String, roots: TrustRoots) throws -> [Certificate] {
        guard roots.verifiesChain else {
            guard let leaf = SSL_get0_peer_certificate(ssl) else { throw ServerTrustError.noVerifiedChain(host: host) }
            return [try X509Chain.certificate(borrowing: leaf)]
        }
        if let failure = X509VerifyResult.error(code: SSL_get_verify_result(ssl), host: host) {
            throw failure
        }
        guard let stack = SSL_get0_verified_chain(ssl) else { throw ServerTrustError.noVerifiedChain(host: host) }
        let chain = try X509Chain.certificates(fromStack: stack)
        guard !chain.isEmpty else { throw ServerTrustError.noVerifiedChain(host: host) }
        return chain
    }

    /// The whole post-handshake decision: ``chainToEvaluate(on:host:roots:)``, then `evaluator`.
    ///
    /// - Throws: ``ServerTrustError`` or the evaluator's error; on any throw the caller closes
    ///   the connection without writing.
    static func check(
        _ ssl: OpaquePointer, host: String, roots: TrustRoots,
        evaluator: any ServerTrustEvaluator
    ) throws {
        try evaluator.evaluate(try chainToEvaluate(on: ssl, host: host, roots: roots), forHost: host)
    }
}
