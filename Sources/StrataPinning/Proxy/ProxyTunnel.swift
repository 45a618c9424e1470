import Strata
import StrataConnect

/// Opens a `CONNECT` tunnel (RFC 9110 §9.3.6) through a proxy, on a TCP connection to it, so
/// that TLS with the pinned host can run inside. Blocking, for a connection's own thread.
enum ProxyTunnel {
    /// The `CONNECT` request for `host:port`, with `Proxy-Authorization: Basic` when the proxy
    /// URL had credentials. The target is the canonical host (an IPv6 one in brackets), so it
    /// holds no byte that could end the line.
    static func request(to host: CanonicalHost, port: Int, credentials: ProxyCredentials?) -> [UInt8] {
        let target = authority(host, port: port)
        var head = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let credentials { head += "Proxy-Authorization: \(credentials.basicAuthorization)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    /// `host:port`, with an IPv6 host in brackets.
    static func authority(_ host: CanonicalHost, port: Int) -> String {
        host.name.contains(":") ? "[\(host.name)]:\(port)" : "\(host.name):\(port)"
    }

    /// Asks the proxy on `socket` for a tunnel to `host:port` and reads its answer, whose head
    /// must fit `limits`, by `deadline`. Interim (1xx) heads before it are skipped, at most
    /// ``ProxyConnectResponse/maximumInterimCount`` of them, within the same head limit and
    /// deadline. On success the socket carries the tunnel.
    ///
    /// - Throws: `TransportError` whose `underlying` is a ``ProxyError`` when the proxy refuses
    ///   or answers badly; the socket's own `TransportError` (timeout, reset) otherwise.
    static func open(
        _ socket: POSIXSocketStream, to host: CanonicalHost, port: Int, via proxy: ProxyConfiguration,
        limits: HTTPLimits, deadline: ContinuousClock.Instant
    ) throws(TransportError) {
        let target = authority(host, port: port)
        let name = proxy.redactedURL
        let request = request(to: host, port: port, credentials: proxy.credentials)
        try request.withUnsafeBytes { bytes in
            Result { () throws(TransportError) in try socket.write(bytes, deadline: deadline) }
        }.get()
        var received: [UInt8] = []
        var scanned = 0
        // Interim (1xx) heads already skipped: their bytes count against the head limit too.
        var interimCount = 0
        var interimBytes = 0
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let length = ProxyConnectResponse.headLength(in: received, resumingAt: &scanned) {
                let response: ProxyConnectResponse
                do {
                    response = try ProxyConnectResponse(head: received[..<length], maxHeaderCount: limits.maxHeaderCount, proxy: name)
                } catch {
                    throw failure(error)
                }
                if response.isInterim {
                    interimCount += 1
                    guard interimCount <= ProxyConnectResponse.maximumInterimCount else {
                        throw failure(
                            .malformedResponse(
                                proxy: name, reason: "it sent more than \(ProxyConnectResponse.maximumInterimCount) interim (1xx) answers"))
                    }
                    received.removeFirst(length)
                    interimBytes += length
                    scanned = 0
                    continue
                }
                guard response.isSuccess else { throw failure(refusal(response, proxy: proxy, target: target)) }
                // The pinned host speaks only after our ClientHello: anything here came from the proxy.
                guard length == received.count else {
                    throw failure(.malformedResponse(proxy: name, reason: "bytes followed its \(response.statusCode) answer"))
                }
                return
            }
            guard interimBytes + received.count < limits.maxHeaderBlockBytes else {
                throw failure(.responseHeadTooLarge(proxy: name, limit: limits.maxHeaderBlockBytes))
            }
            let wanted = min(scratch.count, limits.maxHeaderBlockBytes - interimBytes - received.count)
            let count = try scratch.withUnsafeMutableBytes { buffer in
                Result { () throws(TransportError) -> Int in
                    try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), deadline: deadline)
                }
            }.get()
            guard count > 0 else { throw failure(.closedBeforeResponse(proxy: name, target: target)) }
            received += scratch[..<count]
        }
    }

    /// The error for a refusing answer.
    static func refusal(_ response: ProxyConnectResponse, proxy: ProxyConfiguration, target: String) -> ProxyError {
        // 401 is not a proxy's status (RFC 9110 §15.5.2), but tinyproxy answers it for wrong credentials.
        guard response.statusCode != 407, response.statusCode != 401 else {
            return .authenticationRequired(
                proxy: proxy.redactedURL, target: target, statusCode: response.statusCode,
                sentCredentials: proxy.credentials != nil, challenges: response.challenges)
        }
        return .tunnelRefused(
            proxy: proxy.redactedURL, target: target, statusCode: response.statusCode,
            reason: response.reason)
    }

    /// `error` as the transport reports it: the proxy could not reach the host (5xx) may pass;
    /// a refusal by policy or credentials is configuration; a broken answer is invalid.
    static func failure(_ error: ProxyError) -> TransportError {
        let kind: TransportError.Kind =
            switch error {
            case let .tunnelRefused(_, _, status, _) where (500...599).contains(status): .cannotConnect
            case .authenticationRequired, .tunnelRefused: .other
            case .closedBeforeResponse: .connectionLost
            case .malformedResponse, .responseHeadTooLarge: .invalidResponse
            }
        return TransportError(kind, message: error.description, underlying: error)
    }
}
