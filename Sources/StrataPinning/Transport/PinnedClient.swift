#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Synchronization

/// Sends one request (no redirects) to a pinned host over verified connections, HTTP/2 streams
/// or HTTP/1.1 keep-alive connections as each server chose, bridging the caller's task and the
/// connections' threads.
///
/// Every new connection comes from a slot of the HTTP/1.1 pool (connect, handshake, trust check,
/// nothing written before it passed); when its server selected `h2`, it becomes an
/// ``HTTP2Connection`` registered in the ``HTTP2Pool`` and carries the request as its first
/// stream. Requests that an HTTP/2 connection did not get to (RFC 9113 §8.7: above a GOAWAY's
/// last stream, refused, never sent) are sent again, whatever their method; idempotent ones whose
/// reused connection died before any response byte are sent again once, as over HTTP/1.1.
final class PinnedClient: Sendable {
    /// How often a request the server provably did not process is sent again.
    static let maxUnprocessedRetries = 3

    private let pool: ConnectionPool
    /// Nil when only HTTP/1.1 is offered.
    private let http2: HTTP2Pool?
    private let settings: ConnectionSettings
    private let requestTimeout: Duration
    private let timing: HTTP2Multiplexer.Timing
    private let idleConnectionTimeout: Duration
    private let jobIDs = Atomic<UInt64>(0)

    init(settings: ConnectionSettings, configuration: PinningTransport.Configuration) {
        let http2 = configuration.httpVersion == .http1Only ? nil
            : HTTP2Pool(maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        pool = ConnectionPool(settings: settings, maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                              idleTimeout: configuration.idleConnectionTimeout,
                              evictIdleHTTP2: { [weak http2] in http2?.evictIdle() ?? false },
                              hostForgotten: { [weak http2] in http2?.forgetHTTP1(for: $0) })
        self.http2 = http2
        self.settings = settings
        requestTimeout = configuration.requestTimeout
        timing = HTTP2Multiplexer.Timing(idleTimeout: configuration.idleReadTimeout,
                                         pingInterval: configuration.http2PingInterval)
        idleConnectionTimeout = configuration.idleConnectionTimeout
    }

    deinit {
        pool.shutDown()
        http2?.shutDown()
    }

    /// How many HTTP/1.1 connections to `host:port` exist and how many requests wait for one.
    func poolCounts(host: String, port: Int) -> (open: Int, waiting: Int) {
        pool.counts(host: host, port: port)
    }

    /// How many hosts the pool has an entry for.
    var poolHostCount: Int { pool.hostCount }

    /// How many hosts the HTTP/2 pool has an entry for.
    var http2HostCount: Int { http2?.hostCount ?? 0 }

    /// How many HTTP/2 connections to `host:port` exist and how many streams they carry.
    func http2Counts(host: String, port: Int) -> (connections: Int, streams: Int) {
        http2?.counts(host: host, port: port) ?? (0, 0)
    }

    /// Sends `request` to `host:port`, whose new connections must pass `evaluator`, within the
    /// request timeout (counted from this call: waiting for a connection included).
    ///
    /// - Throws: `TransportError` (``TransportError/Kind/tls`` for refused certificates,
    ///   ``TransportError/Kind/invalidRequest`` for a request HTTP cannot carry,
    ///   ``TransportError/Kind/timedOut`` when the deadline passes, even while waiting for a
    ///   connection), or `CancellationError`.
    func send(_ request: HTTPRequest, host: CanonicalHost, port: Int,
              evaluator: any ServerTrustEvaluator) async throws -> HTTPResponse {
        try Task.checkCancellation()
        // The whole-request timeout starts now, so waiting for a free connection counts too; the
        // caller's RequestDeadline (an endpoint's timeout), when earlier, wins.
        var deadline = ContinuousClock.now + requestTimeout
        if let requestDeadline = RequestDeadline.current {
            guard requestDeadline > .now else {
                throw RequestDeadline.timedOut(method: request.method, url: request.url)
            }
            deadline = min(deadline, requestDeadline)
        }
        let encoded: HTTP1Request
        do {
            encoded = try HTTP1RequestEncoder.encode(request, body: try await HTTP1RequestEncoder.bodyBytes(of: request))
        } catch {
            throw TransportError(.invalidRequest, method: request.method, url: request.url,
                                 message: error.description, underlying: error)
        }
        let key = ConnectionPool.Key(host: host.name, port: port)
        guard let http2 else {
            let outcome = try await sendOnSlot(encoded, key: key, evaluator: evaluator, deadline: deadline, attempt: nil)
            return try await response(outcome, to: encoded, deadline: deadline)
        }
        var retries = 0
        while true {
            let outcome: SlotOutcome
            let reused: Bool
            switch try await http2.route(host: key.host, port: key.port, deadline: deadline) {
            case let .stream(connection):
                outcome = .http2(connection)
                reused = true
            case let .connect(counted):
                outcome = try await sendOnSlot(encoded, key: key, evaluator: evaluator, deadline: deadline,
                                               attempt: counted)
                reused = false
            }
            do {
                return try await response(outcome, to: encoded, deadline: deadline)
            } catch let failure as HTTP2StreamFailure {
                guard Self.shouldRetry(failure, method: encoded.method, reused: reused, retries: retries) else {
                    throw failure.error
                }
                retries += 1
                TransportEvents.emit(PinningEvent.retryingOnFreshConnection(host: key.host, port: key.port,
                                                                            reason: failure.error.message))
            }
        }
    }

    /// Whether a request whose HTTP/2 stream failed is sent again: always when the server
    /// provably did not process it (a bounded number of times); once when it is idempotent, its
    /// connection was reused, and the connection (not the server's verdict on the stream)
    /// failed before any response byte, as RFC 9112 §9.3.1 allows over HTTP/1.1.
    static func shouldRetry(_ failure: HTTP2StreamFailure, method: HTTPMethod, reused: Bool, retries: Int) -> Bool {
        if failure.unprocessed { return retries < maxUnprocessedRetries }
        return retries == 0 && reused && failure.connectionFailed && !failure.receivedResponseBytes && method.isIdempotent
    }

    // MARK: - Carrying the request

    /// What a slot's job produced: an HTTP/1.1 response, or a new HTTP/2 connection to use.
    private enum SlotOutcome: Sendable {
        case http1(HTTP1Response)
        case http2(HTTP2Connection)
    }

    /// The response for `outcome`: as is for HTTP/1.1, or from a stream on the HTTP/2 connection.
    ///
    /// - Throws: ``HTTP2StreamFailure`` when the stream failed (the caller decides on a retry).
    private func response(_ outcome: SlotOutcome, to encoded: HTTP1Request,
                          deadline: ContinuousClock.Instant) async throws -> HTTPResponse {
        switch outcome {
        case let .http1(response):
            return response.httpResponse(url: encoded.url)
        case let .http2(connection):
            return try await exchange(HTTP2Request(encoded), on: connection, deadline: deadline).httpResponse(url: encoded.url)
        }
    }

    /// Runs `request` as a stream on `connection`, whose stream the caller has claimed.
    private func exchange(_ request: HTTP2Request, on connection: HTTP2Connection,
                          deadline: ContinuousClock.Instant) async throws -> HTTP2Response {
        let completion = ExchangeCompletion<(Result<HTTP2Response, HTTP2StreamFailure>, [PinningEvent])>()
        let id = connection.send(request, deadline: deadline, collectsEvents: TransportEvents.isObserved) { result, events in
            completion.finish(.success((result, events)))
        }
        let (result, events) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { completion.install($0) }
        } onCancel: {
            completion.finish(.failure(CancellationError()))
            connection.cancel(id)
        }
        for event in events { TransportEvents.emit(event) }
        return try result.get()
    }

    /// Runs `encoded` on a slot of the HTTP/1.1 pool: on its kept connection, or on a new one,
    /// which becomes an ``HTTP2Connection`` when its server selects `h2`.
    ///
    /// - Parameter attempt: For the ``HTTP2Pool``: whether this is a counted connection attempt
    ///   (reported back exactly once, from the slot's thread, even if the caller is cancelled);
    ///   nil when HTTP/2 is not offered.
    private func sendOnSlot(_ encoded: HTTP1Request, key: ConnectionPool.Key, evaluator: any ServerTrustEvaluator,
                            deadline: ContinuousClock.Instant, attempt counted: Bool?) async throws -> SlotOutcome {
        let lease: ConnectionPool.Lease
        do {
            lease = try await pool.acquire(host: key.host, port: key.port, deadline: deadline)
        } catch {
            if counted == true { http2?.attemptFailed(for: key) }
            throw error
        }
        let connection = lease.connection
        let jobID = jobIDs.wrappingAdd(1, ordering: .relaxed).newValue
        connection.begin(jobID: jobID)
        var job = ExchangeJob(request: encoded, evaluator: evaluator, deadline: deadline, idleExpired: lease.idleExpired,
                              collectsEvents: TransportEvents.isObserved)
        // What this attempt taught the HTTP/2 pool is reported once: at the handshake when the
        // server chose HTTP/1.1 (so waiting requests go on before this response), else at the end.
        let reported = Atomic(false)
        let http2 = http2
        if let counted, let http2 {
            job.onEstablished = { selected in
                guard selected != "h2", !reported.exchange(true, ordering: .relaxed) else { return }
                http2.learnedHTTP1(for: key, counted: counted)
            }
        }
        // The job's events travel beside its outcome, failure included (a refused pin is an event).
        let completion = ExchangeCompletion<(Result<SlotOutcome, any Error>, [PinningEvent])>()
        connection.submit(job) { [pool, settings, timing, idleConnectionTimeout] report in
            pool.release(connection, keepAlive: report.keepAlive)
            let firstReport = counted != nil && !reported.exchange(true, ordering: .relaxed)
            let outcome = report.result.flatMap { outcome -> Result<SlotOutcome, any Error> in
                switch outcome {
                case let .response(response):
                    if firstReport, let counted { http2?.learnedHTTP1(for: key, counted: counted) }
                    return .success(.http1(response))
                case let .http2(stream):
                    guard let http2 else {
                        stream.close()
                        return .failure(TransportError(.tls, message: "the server selected h2, which was not offered"))
                    }
                    return Result { () throws(TransportError) -> SlotOutcome in
                        let connection = try HTTP2Connection.start(
                            stream: stream, host: key.host, port: key.port, settings: settings, timing: timing,
                            idleTimeout: idleConnectionTimeout) { [weak http2] in http2?.closed($0) }
                        // Claimed before it is published, so the stream it was opened for is its first.
                        _ = connection.reserve(beyondLimit: true)
                        http2.established(connection, for: key, counted: counted == true)
                        return .http2(connection)
                    }.mapError { $0 }
                }
            }
            if case .failure = outcome, firstReport, counted == true { http2?.attemptFailed(for: key) }
            // A caller that was cancelled meanwhile will not use the stream claimed for it.
            if !completion.finish(.success((outcome, report.events))), case let .success(.http2(connection)) = outcome {
                connection.release()
            }
        }
        let (outcome, events) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { completion.install($0) }
        } onCancel: {
            completion.finish(.failure(CancellationError()))
            connection.abort(jobID: jobID)
        }
        for event in events { TransportEvents.emit(event) }
        return try outcome.get()
    }
}
