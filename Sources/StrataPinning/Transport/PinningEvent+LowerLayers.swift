import Strata

// The layers below the transport report in their own words (``ConnectionEvent`` from the pool,
// ``HTTP1Event`` and ``HTTP2Event`` from the protocols) and never name ``PinningEvent``: the
// transport, which owns the event channel, translates here, one case to one case.

extension PinningEvent {
    /// The pinning event for what a pooled connection did for a job.
    init(_ event: ConnectionEvent) {
        switch event {
        case let .connectionOpened(host, port, version, duration):
            self = .connectionOpened(host: host, port: port, tlsVersion: version, duration: duration)
        case let .addressConnected(host, address, attempts):
            self = .addressConnected(host: host, address: address, attempts: attempts)
        case let .tunnelOpened(proxy, host, port): self = .tunnelOpened(proxy: proxy, host: host, port: port)
        case let .pinMismatchReported(host, served, failure):
            self = .pinMismatchReported(host: host, servedPins: served, failure: failure)
        case let .connectionReused(host, port): self = .connectionReused(host: host, port: port)
        case let .connectionDiscarded(host, port, reason): self = .connectionDiscarded(host: host, port: port, reason: reason)
        case let .trustEvaluated(host, pin, failure): self = .trustEvaluated(host: host, matchedPin: pin, failure: failure)
        case let .retryingOnFreshConnection(host, port, reason):
            self = .retryingOnFreshConnection(host: host, port: port, reason: reason)
        case let .http1(event, host): self.init(event, host: host)
        }
    }

    /// The pinning event for what the HTTP/1.1 client did on a connection to `host`.
    init(_ event: HTTP1Event, host: String) {
        switch event {
        case .requestSent(let method, let bytes): self = .requestWritten(host: host, method: method, bytes: bytes)
        case .interimResponseSkipped(let status): self = .interimResponseSkipped(host: host, statusCode: status)
        case .responseReceived(let status, let bytes, let keepAlive):
            self = .responseRead(host: host, statusCode: status, bodyBytes: bytes, keepAlive: keepAlive)
        case .failed(let kind, let message): self = .exchangeFailed(host: host, kind: kind, message: message)
        }
    }

    /// The pinning event for what the HTTP/2 client did on a connection to `host`.
    init(_ event: HTTP2Event, host: String) {
        switch event {
        case let .requestSent(streamID, method, bytes):
            self = .streamOpened(host: host, streamID: streamID, method: method, bodyBytes: bytes)
        case let .responseReceived(streamID, status, bytes):
            self = .streamResponseRead(host: host, streamID: streamID, statusCode: status, bodyBytes: bytes)
        case let .failed(streamID, kind, message):
            self = .streamFailed(host: host, streamID: streamID, kind: kind, message: message)
        case let .settingsReceived(streams): self = .http2SettingsReceived(host: host, maxConcurrentStreams: streams)
        case let .goAwayReceived(last, code): self = .goAwayReceived(host: host, lastStreamID: last, code: code)
        case .pingSent: self = .pingSent(host: host)
        }
    }
}
