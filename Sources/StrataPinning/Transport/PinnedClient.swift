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
/// nothing written before it passed); when its server selected `h2`, the ``HTTP2Pool`` adopts it
/// as the handshake ends, on the slot's thread (the slot's unit of the connection limit passing
/// to it), and it carries the request as its first stream. Requests that an HTTP/2 connection
/// did not get to (RFC 9113 §8.7: above a GOAWAY's last stream, refused, never sent) are sent
/// again, whatever their method; idempotent ones whose
/// reused connection died before any response byte are sent again once, as over HTTP/1.1. Either
/// way a body is sent again only if it can be: from memory, a file read again from the start, or
/// a single-pass stream that was never read; a single-pass body once read is never resent.
///
/// Both protocols stream: request bodies that are files or streams are read as they are sent,
/// and ``stream(_:host:port:evaluator:_:)`` hands the response body to its consumer as it
/// arrives, the connection (HTTP/1.1) or the stream's flow-control window (HTTP/2) reading only
/// as far as the consumer has.
final class PinnedClient: Sendable {
    /// How often a request the server provably did not process is sent again.
    static let maxUnprocessedRetries = 3

    private let pool: ConnectionPool
    /// Nil when only HTTP/1.1 is offered.
    private let http2: HTTP2Pool?
    private let requestTimeout: Duration
    private let jobIDs = Atomic<UInt64>(0)

    init(settings: ConnectionSettings, configuration: PinningTransport.Configuration) {
        let timing = HTTP2Multiplexer.Timing(
            idleTimeout: configuration.idleReadTimeout,
            pingInterval: configuration.http2PingInterval)
        let http2 =
            configuration.httpVersion == .http1Only
            ? nil
            : HTTP2Pool(
                maxConnectionsPerHost: configuration.maxConnectionsPerHost, settings: settings, timing: timing,
                idleTimeout: configuration.idleConnectionTimeout)
        pool = ConnectionPool(
            settings: settings, maxConnectionsPerHost: configuration.maxConnectionsPerHost,
            idleTimeout: configuration.idleConnectionTimeout,
            evictIdleHTTP2: { [weak http2] in http2?.evictIdle() ?? false },
            hostForgotten: { [weak http2] in http2?.forgetHTTP1(for: $0) })
        self.http2 = http2
        requestTimeout = configuration.requestTimeout
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

    /// Each HTTP/2 connection to `host:port`, oldest first, as the pool's routing sees it.
    func http2Loads(host: String, port: Int) -> [HTTP2Pool.Load] {
        http2?.loads(host: host, port: port) ?? []
    }

    /// Claims a stream on an HTTP/2 connection to `host:port` that already exists, and sends
    /// nothing on it: what a request does between its route and its send (for tests). Give it
    /// back with `release()`; nil when no connection is there to claim from.
    func claimHTTP2Stream(host: String, port: Int) async throws -> HTTP2Connection? {
        guard let http2 else { return nil }
        switch try await http2.route(host: host, port: port, deadline: .now + .seconds(10)) {
        case let .stream(connection):
            return connection
        case let .connect(attempt):
            attempt.report(.failed)
            return nil
        }
    }

    /// Sends `request` to `host:port`, whose new connections must pass `evaluator`, within the
    /// request timeout (counted from this call: waiting for a connection included), and returns
    /// the whole response.
    ///
    /// A body in memory is written with the head; a file or stream body is read as it is
    /// written, never collected: over HTTP/1.1 through a ``RequestBodyPipe``, over HTTP/2 through
    /// an ``HTTP2RequestBodyPipe`` as flow control lets DATA frames go out.
    ///
    /// - Throws: `TransportError` (``/Strata/TransportError/Kind/tls`` for refused certificates,
    ///   ``/Strata/TransportError/Kind/invalidRequest`` for a request HTTP cannot carry,
    ///   ``/Strata/TransportError/Kind/timedOut`` when the deadline passes, even while waiting for a
    ///   connection), or `CancellationError`.
    func send(
        _ request: HTTPRequest, host: CanonicalHost, port: Int,
        evaluator: any ServerTrustEvaluator
    ) async throws -> HTTPResponse {
        let exchange = try prepare(request, host: host, port: port, evaluator: evaluator)
        defer { exchange.body?.close() }
        guard case let .whole(response) = try await run(exchange, streaming: false) else {
            preconditionFailure("an exchange run with streaming: false returns the whole response")
        }
        return response
    }

    /// Sends `request` like ``send(_:host:port:evaluator:)`` and calls `consume` with the head as
    /// soon as it is read and the body as it arrives, read only as `consume` asks: over HTTP/1.1
    /// from the connection (a bounded buffer), over HTTP/2 through the stream's flow-control
    /// window, which reopens only as far as `consume` has read.
    ///
    /// When `consume` returns or throws, the body is released, and this returns once that is
    /// done: over HTTP/1.1 the rest is drained if small, else the connection is closed, and the
    /// connection is back in the pool or closed; over HTTP/2 an unfinished stream is reset with
    /// RST_STREAM (CANCEL), what it had received is credited back to the connection's window, and
    /// the connection goes on carrying other streams. The request's deadline and the idle read
    /// timeout apply until the body's end; cancelling the calling task ends the exchange. A
    /// streamed body is not capped by `HTTPLimits.maxResponseBodyBytes`.
    ///
    /// - Throws: What ``send(_:host:port:evaluator:)`` throws, and what `consume` throws.
    func stream<Result: Sendable>(
        _ request: HTTPRequest, host: CanonicalHost, port: Int, evaluator: any ServerTrustEvaluator,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let exchange = try prepare(request, host: host, port: port, evaluator: evaluator)
        defer { exchange.body?.close() }
        switch try await run(exchange, streaming: true) {
        case let .whole(response):
            // Not reached today (both protocols return a head when streaming); correct anyway.
            return try await consume(response.head, HTTPBody(response.body))
        case let .streaming(head, streamed, connection, jobID):
            return try await deliver(
                head.httpResponse(url: request.url).head, streamed, length: head.bodyLength,
                connection: connection, jobID: jobID, consume)
        case let .http2Streaming(streamed):
            return try await deliver(streamed, method: exchange.head.method, url: request.url, consume)
        }
    }

    /// One request ready to go: checked, its deadline fixed.
    struct Exchange: Sendable {
        var request: HTTPRequest
        /// The request's checked parts, which HTTP/1.1 encodes and HTTP/2 frames.
        var head: ValidatedRequestHead
        /// How HTTP/1.1 reads a file or stream body (nil for a body in memory or none).
        var body: RequestBodyPipe?
        var key: ConnectionPool.Key
        var evaluator: any ServerTrustEvaluator
        var deadline: ContinuousClock.Instant
    }

    /// What an exchange produced: a whole response, or the head of one whose body streams.
    private enum Exchanged: Sendable {
        case whole(HTTPResponse)
        case streaming(HTTP1Response, StreamedResponse, PooledConnection, jobID: UInt64)
        case http2Streaming(HTTP2ResponseStream)
    }

    private func prepare(
        _ request: HTTPRequest, host: CanonicalHost, port: Int,
        evaluator: any ServerTrustEvaluator
    ) throws -> Exchange {
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
        // The same checks for both protocols, made once: HTTP/1.1 encodes the head on a slot,
        // HTTP/2 frames it for a stream.
        let head: ValidatedRequestHead
        do {
            head = try ValidatedRequestHead(request, bodyLength: ValidatedRequestHead.bodyLength(of: request))
        } catch {
            throw TransportError(
                .invalidRequest, method: request.method, url: request.url,
                message: error.description, underlying: error)
        }
        let body = request.body.flatMap { $0.bytesInMemory == nil ? RequestBodyPipe($0) : nil }
        return Exchange(
            request: request, head: head, body: body, key: ConnectionPool.Key(host: host.name, port: port),
            evaluator: evaluator, deadline: deadline)
    }

    /// Carries `exchange` over HTTP/2 or HTTP/1.1, whichever the host speaks.
    private func run(_ exchange: Exchange, streaming: Bool) async throws -> Exchanged {
        let key = exchange.key
        // Encoded for HTTP/1.1 when a slot first needs it: a request on an HTTP/2 stream never is.
        var encoded: HTTP1Request?
        guard let http2 else {
            let outcome = try await sendOnSlot(exchange, encoded: &encoded, streaming: streaming, attempt: nil)
            var prepared: HTTP2Request?
            return try await response(outcome, to: exchange, streaming: streaming, prepared: &prepared)
        }
        var retries = 0
        // Built on the first stream; a resend reuses it (a body in memory) or renews its body's
        // pipe (a file, or a single-pass body never read), never reads a single-pass body twice.
        var prepared: HTTP2Request?
        while true {
            let outcome: SlotOutcome
            let reused: Bool
            switch try await http2.route(host: key.host, port: key.port, deadline: exchange.deadline) {
            case let .stream(connection):
                outcome = .http2(connection)
                reused = true
            case let .connect(attempt):
                outcome = try await sendOnSlot(exchange, encoded: &encoded, streaming: streaming, attempt: attempt)
                reused = false
            }
            do {
                return try await response(outcome, to: exchange, streaming: streaming, prepared: &prepared)
            } catch let failure as HTTP2StreamFailure {
                guard Self.shouldRetry(failure, method: exchange.head.method, reused: reused, retries: retries) else {
                    throw failure.error
                }
                if let sent = prepared {
                    // A single-pass body some of which may have gone out is not sent again.
                    guard let resent = sent.forResend() else { throw failure.error }
                    prepared = resent
                }
                retries += 1
                TransportEvents.emit(
                    PinningEvent.retryingOnFreshConnection(
                        host: key.host, port: key.port,
                        reason: failure.error.message))
            }
        }
    }

    /// Hands a streamed HTTP/1.1 response to `consume`, then releases its body and waits until
    /// its connection was drained back into the pool or closed; reports the job's events.
    private func deliver<Result: Sendable>(
        _ head: HTTPResponseHead, _ streamed: StreamedResponse, length: Int64?,
        connection: PooledConnection, jobID: UInt64,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await consume(head, streamed.channel.body(length: length)))
        } catch {
            outcome = .failure(error)
        }
        // The reader is done: a thread waiting on the reader drains a small rest or closes; one
        // waiting on the server is interrupted (the connection then closes), at once when the
        // rest would not be drained anyway, else if the server stalls the drain.
        var watchdog: Task<Void, Never>?
        switch streamed.abandon() {
        case .none: break
        case .now: connection.abort(jobID: jobID)
        case .after(let wait):
            watchdog = Task {
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                connection.abort(jobID: jobID)
            }
        }
        defer { watchdog?.cancel() }
        // Cancellation aborts the job (its socket is shut down, so the thread is done at once)
        // and still waits for it: when this returns, the connection is back or closed.
        let events = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { streamed.ended.install($0) }
        } onCancel: {
            connection.abort(jobID: jobID)
        }
        for event in events { TransportEvents.emit(PinningEvent(event)) }
        return try outcome.get()
    }

    /// Hands a streamed HTTP/2 response to `consume`, then releases its body (an unfinished stream
    /// is reset with CANCEL) and waits until the stream is over on its connection; reports the
    /// exchange's events since its head (those before were reported with the head).
    private func deliver<Result: Sendable>(
        _ streamed: HTTP2ResponseStream, method: HTTPMethod, url: URL,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let head = HTTPResponseHead(statusCode: streamed.head.statusCode, headers: streamed.head.headers, url: url)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await consume(head, streamed.channel.body(length: streamed.bodyLength(method: method))))
        } catch {
            outcome = .failure(error)
        }
        let events = await streamed.release()
        for event in events { TransportEvents.emit(PinningEvent(event, host: streamed.connection.host)) }
        return try outcome.get()
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

    /// What a slot's job produced: an HTTP/1.1 response (whole, or its head while its body
    /// streams), or a new HTTP/2 connection to use.
    private enum SlotOutcome: Sendable {
        case http1(HTTP1Response)
        case http1Streaming(HTTP1Response, StreamedResponse, PooledConnection, jobID: UInt64)
        case http2(HTTP2Connection)
    }

    /// The response for `outcome`: as is for HTTP/1.1, or from a stream on the HTTP/2 connection
    /// (its head only when `streaming`: the body then flows as the consumer reads).
    ///
    /// - Parameter prepared: The HTTP/2 request, built on the first stream and reused by a resend.
    /// - Throws: ``HTTP2StreamFailure`` when the stream failed (the caller decides on a retry).
    private func response(
        _ outcome: SlotOutcome, to exchange: Exchange, streaming: Bool,
        prepared: inout HTTP2Request?
    ) async throws -> Exchanged {
        let url = exchange.request.url
        switch outcome {
        case let .http1(response):
            return .whole(response.httpResponse(url: url))
        case let .http1Streaming(head, streamed, connection, jobID):
            return .streaming(head, streamed, connection, jobID: jobID)
        case let .http2(connection):
            let request = prepared ?? HTTP2Request(exchange.head, body: exchange.request.body)
            prepared = request
            guard streaming else {
                return .whole(try await self.exchange(request, on: connection, deadline: exchange.deadline).httpResponse(url: url))
            }
            let (opened, events) = try await connection.stream(
                request, deadline: exchange.deadline,
                collectsEvents: TransportEvents.isObserved)
            // What happened up to the head (or the failure) is told before `consume` runs.
            for event in events { TransportEvents.emit(PinningEvent(event, host: connection.host)) }
            return .http2Streaming(try opened.get())
        }
    }

    /// Runs `request` as a stream on `connection`, whose stream the caller has claimed.
    private func exchange(
        _ request: HTTP2Request, on connection: HTTP2Connection,
        deadline: ContinuousClock.Instant
    ) async throws -> HTTP2Response {
        let completion = ExchangeCompletion<(Result<HTTP2Response, HTTP2StreamFailure>, [HTTP2Event])>()
        let id = connection.send(request, deadline: deadline, collectsEvents: TransportEvents.isObserved) { result, events in
            completion.finish(.success((result, events)))
        }
        let (result, events) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { completion.install($0) }
        } onCancel: {
            completion.finish(.failure(CancellationError()))
            connection.cancel(id)
        }
        for event in events { TransportEvents.emit(PinningEvent(event, host: connection.host)) }
        return try result.get()
    }

    /// Runs the exchange on a slot of the HTTP/1.1 pool: on its kept connection, or on a new one,
    /// which the ``HTTP2Pool`` adopts when its server selects `h2`.
    ///
    /// - Parameters:
    ///   - streaming: Return an HTTP/1.1 response's head as soon as it is read, its body streaming
    ///     (the job's events then come with ``StreamedResponse/ended``).
    ///   - attempt: What this turn teaches the ``HTTP2Pool`` (reported from the slot's thread,
    ///     even if the caller is cancelled); nil when HTTP/2 is not offered.
    private func sendOnSlot(
        _ exchange: Exchange, encoded: inout HTTP1Request?, streaming: Bool,
        attempt: ConnectionAttempt?
    ) async throws -> SlotOutcome {
        let key = exchange.key
        let lease: ConnectionPool.Lease
        do {
            lease = try await pool.acquire(host: key.host, port: key.port, deadline: exchange.deadline)
        } catch {
            attempt?.report(.failed)
            throw error
        }
        let connection = lease.connection
        let jobID = jobIDs.wrappingAdd(1, ordering: .relaxed).newValue
        connection.begin(jobID: jobID)
        let request = encoded ?? HTTP1RequestEncoder.encodeStreaming(exchange.head, body: exchange.request.body)
        encoded = request
        var job = ExchangeJob(
            request: request, evaluator: exchange.evaluator, deadline: exchange.deadline,
            idleExpired: lease.idleExpired, collectsEvents: TransportEvents.isObserved)
        job.requestBody = exchange.body
        // A server that chose HTTP/1.1 is reported at the handshake, so waiting requests go on
        // before this response; an `h2` one when the connection was adopted, below.
        if let attempt {
            job.onEstablished = { selected in
                if selected != "h2" { attempt.report(.http1) }
            }
        }
        // The job's events travel beside its outcome, failure included (a refused pin is an event).
        let completion = ExchangeCompletion<(Result<SlotOutcome, any Error>, [ConnectionEvent])>()
        let streamed = streaming ? StreamedResponse() : nil
        if let streamed {
            job.streamedResponse = streamed
            // The head is the outcome the caller waits for; the events follow at the job's end.
            job.onHead = { head in
                if !completion.finish(.success((.success(.http1Streaming(head, streamed, connection, jobID: jobID)), []))) {
                    _ = streamed.abandon() // the caller is gone: nobody will read the body
                }
            }
        }
        connection.submit(job) { [pool] report in
            let outcome: Result<SlotOutcome, any Error>
            switch report.result {
            case let .success(.response(response)):
                pool.release(connection, keepAlive: report.keepAlive)
                // A kept connection never handshakes: its response is what it taught.
                attempt?.report(.http1)
                outcome = .success(.http1(response))
            case let .success(.http2(stream)):
                guard let attempt else {
                    pool.release(connection, keepAlive: false)
                    stream.close()
                    outcome = .failure(TransportError(.tls, message: "the server selected h2, which was not offered"))
                    break
                }
                do throws(TransportError) {
                    let adopted = try attempt.pool.adopt(stream, from: connection, of: pool)
                    attempt.report(.http2(adopted))
                    outcome = .success(.http2(adopted))
                } catch {
                    attempt.report(.failed)
                    outcome = .failure(error)
                }
            case let .failure(error):
                pool.release(connection, keepAlive: report.keepAlive)
                attempt?.report(.failed)
                outcome = .failure(error)
            }
            // A streamed response's caller had its head already: the events end its wait.
            streamed?.ended.finish(.success(report.events))
            // A caller that was cancelled meanwhile will not use the stream claimed for it.
            if !completion.finish(.success((outcome, report.events))), case let .success(.http2(connection)) = outcome {
                connection.release()
            }
        }
        let (outcome, events) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { completion.install($0) }
        } onCancel: {
            completion.finish(.failure(CancellationError()))
            _ = streamed?.abandon()
            connection.abort(jobID: jobID)
        }
        for event in events { TransportEvents.emit(PinningEvent(event)) }
        return try outcome.get()
    }
}
