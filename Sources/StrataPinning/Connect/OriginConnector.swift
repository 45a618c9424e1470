import Strata
import StrataConnect

/// How a pooled connection reaches a pinned host's TCP port before TLS: directly, racing every
/// address the name resolves to (RFC 8305), or through the configured proxy's `CONNECT` tunnel
/// (the proxy's own addresses raced the same way). The connect timeout covers it all: name
/// resolution, connecting and the proxy's answer.
struct OriginConnector: Sendable {
    /// Resolves host names on a helper thread (tests inject one).
    var resolver: any HostNameResolver = SystemHostNameResolver()
    /// How long one address is tried alone before the next joins it (RFC 8305 §5).
    var attemptDelay = ConnectionRace.defaultAttemptDelay
    /// The proxy, nil for direct connections.
    var proxy: ProxyConfiguration?
    /// Limits on the proxy's response head.
    var limits: HTTPLimits = .default

    /// The proxy that carries connections to `host:port`, nil when they go directly.
    func proxy(for host: String, port: Int) -> ProxyConfiguration? {
        guard let proxy, let canonical = try? CanonicalHost(host) else { return nil }
        return proxy.tunnels(to: canonical, port: port) ? proxy : nil
    }

    /// Connects to `host:port` (a ``CanonicalHost`` name), through the proxy unless `NO_PROXY`
    /// lists it, within `connectTimeout` and `deadline`.
    ///
    /// - Parameter opened: Called with the TCP connection as soon as it exists, before the
    ///   tunnel is asked for, so a canceller can close it.
    /// - Returns: A TCP connection that leads to the pinned host (through the tunnel, if any).
    /// - Throws: `TransportError` (a ``ProxyError`` as `underlying` when the proxy refused).
    func connect(
        host: String, port: Int, connectTimeout: Duration, idleTimeout: Duration,
        deadline: ContinuousClock.Instant,
        opened: (POSIXSocketStream) -> Void
    ) throws(TransportError) -> POSIXSocketStream {
        let start = ContinuousClock.now
        let connectDeadline = min(deadline, start + connectTimeout)
        guard let proxy = proxy(for: host, port: port), let target = try? CanonicalHost(host) else {
            let socket = try POSIXSocketStream.connect(
                host: host, port: port, connectTimeout: connectDeadline - start,
                idleTimeout: idleTimeout, resolver: resolver, attemptDelay: attemptDelay)
            opened(socket)
            return socket
        }
        let socket: POSIXSocketStream
        do {
            socket = try POSIXSocketStream.connect(
                host: proxy.host, port: proxy.port, connectTimeout: connectDeadline - start,
                idleTimeout: idleTimeout, resolver: resolver, attemptDelay: attemptDelay)
        } catch {
            var error = error
            error.message = "cannot reach the proxy \(proxy.redactedURL): \(error.message)"
            throw error
        }
        opened(socket)
        do {
            try ProxyTunnel.open(socket, to: target, port: port, via: proxy, limits: limits, deadline: connectDeadline)
        } catch {
            socket.close()
            guard error.kind == .timedOut else { throw error }
            throw TransportError(
                .timedOut,
                message: "the proxy \(proxy.redactedURL) did not answer the CONNECT to "
                    + "\(ProxyTunnel.authority(target, port: port)) within the connect timeout "
                    + "(PinningTransport.Configuration.connectTimeout) or the request's deadline")
        }
        return socket
    }
}
