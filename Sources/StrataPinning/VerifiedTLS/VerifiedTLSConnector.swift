import Strata
import StrataConnect

/// TLS for a protocol other than HTTP (StrataRedis's `rediss://`), with every check a pinned
/// HTTP connection gets: OpenSSL verifies the chain against the ``TrustRoots`` and the host name
/// during the handshake, the ``ClientIdentity`` is presented when the server asks for one, and
/// the evaluator (such as a ``PublicKeyPinningEvaluator``) sees the verified chain before the
/// stream is handed out, so not one byte reaches a server that was not trusted.
///
/// No ALPN protocol is offered: the protocol spoken is the caller's, not HTTP's.
package struct VerifiedTLSConnector: Sendable {
    private let context: TLSClientContext
    private let identity: ClientIdentity?
    private let evaluator: (any ServerTrustEvaluator)?

    /// Builds the OpenSSL context once; each ``connect(host:port:timeouts:deadline:)`` makes one
    /// session from it.
    ///
    /// The evaluator meets the rules a pinned host's does: with ``TrustRoots/pinnedKeysOnly``
    /// (no chain verification) it must require a pinned key and hold no report-only part, else
    /// a server anyone could impersonate would be handed out.
    ///
    /// - Parameter host: The server's host, for the error that names it.
    /// - Throws: ``PinningConfigurationError`` when the evaluator breaks those rules, or the trust
    ///   store or the context cannot be built.
    package init(host: String, roots: TrustRoots, identity: ClientIdentity?, evaluator: (any ServerTrustEvaluator)?)
        throws(PinningConfigurationError)
    {
        try PinnedDomains.validate(evaluator, hostPattern: host, roots: roots)
        context = try TLSClientContext(roots: roots, protocols: [])
        self.identity = identity
        self.evaluator = evaluator
    }

    /// Connects to `host:port` (resolving and racing its addresses as StrataConnect does) and
    /// completes a handshake whose chain, host name and pins passed.
    ///
    /// - Parameters:
    ///   - timeouts: The connect timeout (resolution included), the handshake's, and the idle
    ///     timeout of every later read and write.
    ///   - deadline: Connecting and the handshake stop there too.
    /// - Throws: ``ServerTrustError`` when the chain, the host name or the pins were refused;
    ///   `TransportError` otherwise (``/Strata/TransportError/Kind/timedOut``,
    ///   ``/Strata/TransportError/Kind/cannotConnect``, ``/Strata/TransportError/Kind/tls`` with a
    ///   ``ClientAuthenticationError`` as `underlying` when the server refused the client certificate).
    package func connect(
        host: String, port: Int, timeouts: (connect: Duration, handshake: Duration, idle: Duration),
        deadline: ContinuousClock.Instant
    ) throws -> VerifiedTLSStream {
        let name = (try? CanonicalHost(host))?.name ?? host
        let stream = try TLSStream.open(
            host: name, port: port, context: context,
            timeouts: .init(
                connect: timeouts.connect, handshake: timeouts.handshake,
                idle: timeouts.idle),
            deadline: deadline, identity: identity)
        do {
            let chain = try stream.chainToEvaluate(roots: context.roots)
            try evaluator?.evaluate(chain, forHost: name)
        } catch {
            stream.close()
            throw error
        }
        return VerifiedTLSStream(stream)
    }
}
