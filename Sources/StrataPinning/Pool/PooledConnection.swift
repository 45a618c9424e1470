import Strata
import StrataConnect

/// One slot of the connection pool: a dedicated thread and, between requests, the verified TLS
/// connection it keeps alive. Whoever holds the pool's lease submits one ``ExchangeJob``; the job
/// runs entirely on the slot's thread.
///
/// A job reuses the kept connection only if it is still open and not past the idle expiry;
/// otherwise (or when there is none) it connects, handshakes and runs the trust check, and
/// only then writes the request. An idempotent request that fails on a reused connection
/// before any response byte is sent once more on a fresh connection.
final class PooledConnection: Sendable {
    /// The pool key: which host and port this slot connects to.
    let host: String
    let port: Int
    private let settings: ConnectionSettings
    private let thread = ConnectionThread()
    /// The running job's events (on the slot's thread), for the caller's observers.
    private let events = JobEvents()

    /// The kept connection: touched only by the slot's own thread, one job at a time; the
    /// mutex makes that checked and is never contended.
    private let kept = LockedValue<HTTP1Connection<TLSStream>?>(nil)
    /// The report-only mismatches of the last connection opened, while no observed job has had
    /// them: its opening job had no observer, so the first observed job reusing it reports them.
    private let unreported = LockedValue<[ConnectionEvent]>([])

    /// What another thread may do to a running job: close its socket so a blocked call returns.
    private struct Control {
        var jobID: UInt64 = 0
        var aborted = false
        /// Shuts the running job's socket down.
        var close: (@Sendable () -> Void)?
    }
    private let control = LockedValue(Control())

    /// Creates the slot and its thread (waiting for a job).
    ///
    /// - Parameter onIdle: Called on the slot's thread after `idleTimeout` without a job; returns
    ///   true when the pool took the slot out of its idle list, and the thread then ends.
    init(
        host: String, port: Int, settings: ConnectionSettings, idleTimeout: Duration,
        onIdle: @escaping @Sendable (PooledConnection) -> Bool
    ) {
        self.host = host
        self.port = port
        self.settings = settings
        // Weak: the pool's idle list or the current lease keeps the slot alive, not its thread.
        thread.start(name: "strata-pinning \(host):\(port)", idleTimeout: idleTimeout) { [weak self] in
            guard let self else { return true }
            guard onIdle(self) else { return false }
            closeKeptConnection(reason: "idle for \(idleTimeout)")
            return true
        }
    }

    /// Marks the start of job `id`, before it is submitted, so ``abort(jobID:)`` can find it.
    func begin(jobID: UInt64) {
        control.withLock { $0 = Control(jobID: jobID) }
    }

    /// Runs `job` on the slot's thread and then `completion` with its report, on that thread.
    func submit(_ job: ExchangeJob, completion: @escaping @Sendable (ExchangeReport) -> Void) {
        thread.submit { [self] in completion(run(job)) }
    }

    /// Cancels job `jobID` if it is still the running one: its socket is shut down, so a blocked
    /// read, write or handshake returns at once, and the connection is not kept.
    func abort(jobID: UInt64) {
        let close = control.withLock { control -> (@Sendable () -> Void)? in
            guard control.jobID == jobID else { return nil }
            control.aborted = true
            return control.close
        }
        close?()
    }

    /// Forgets the running job's socket, which now belongs to another owner (an HTTP/2
    /// connection it was handed over to): a later ``abort(jobID:)`` of that job, from a caller
    /// cancelled after the handover, must not close a connection other requests now use.
    func relinquishStream() {
        control.withLock { $0.close = nil }
    }

    /// Ends the slot's thread after its current job and closes the kept connection.
    func shutDown() {
        thread.submit { [self] in closeKeptConnection(reason: "the pool was shut down") }
        thread.stop()
    }

    private var isAborted: Bool { control.withLock { $0.aborted } }

    // MARK: - On the slot's thread

    private func run(_ job: ExchangeJob) -> ExchangeReport {
        var report = ExchangeReport()
        events.begin(collecting: job.collectsEvents)
        do {
            guard !isAborted else { throw CancellationError() }
            report.result = .success(try exchange(job, report: &report))
        } catch {
            if isAborted { closeKeptConnection(reason: "the request was cancelled") }
            report.result = .failure(isAborted ? CancellationError() : error)
        }
        report.events = events.finish()
        return report
    }

    /// Sends the job's request on the kept connection or a new one, and keeps the connection
    /// if it can carry another request. A new connection whose server selected `h2` is handed
    /// back unused instead.
    private func exchange(_ job: ExchangeJob, report: inout ExchangeReport) throws -> ExchangeOutcome {
        let reused = takeKeptConnection(idleExpired: job.idleExpired)
        var connection: HTTP1Connection<TLSStream>
        if let reused {
            events.record(.connectionReused(host: host, port: port))
            if job.collectsEvents {
                for event in unreported.withLock({ unreported in
                    defer { unreported = [] }; return unreported
                }) {
                    events.record(event)
                }
            }
            connection = reused
        } else {
            connection = try establish(job)
            if connection.stream.selectedProtocol == "h2" { return .http2(connection.stream) }
        }
        var response: HTTP1Response
        do throws(HTTP1ExchangeError) {
            response = try send(job, on: &connection)
        } catch {
            // RFC 9112 §9.3.1: a server may close an idle connection just as a request is sent
            // on it. With no response byte seen, an idempotent request is safe to send again;
            // its body only if it can be read again from the start (never a single-pass one).
            guard reused != nil, !error.receivedResponseBytes, job.request.method.isIdempotent, !isAborted,
                job.requestBody?.isReplayable ?? true
            else {
                throw error.error
            }
            events.record(.retryingOnFreshConnection(host: host, port: port, reason: error.error.message))
            if let body = job.requestBody, body.hasStarted { body.restart() }
            connection = try establish(job)
            if connection.stream.selectedProtocol == "h2" { return .http2(connection.stream) }
            do throws(HTTP1ExchangeError) {
                response = try send(job, on: &connection)
            } catch {
                throw error.error
            }
        }
        if let streamed = job.streamedResponse {
            job.onHead?(response)
            streamed.pump(&connection, deadline: job.deadline)
        }
        if connection.isReusable, !isAborted {
            report.keepAlive = true
            kept.withLock { $0 = connection }
        } else {
            connection.close()
        }
        return .response(response)
    }

    /// Sends the job's request on `connection`: the whole response, or its head when streamed.
    private func send(_ job: ExchangeJob, on connection: inout HTTP1Connection<TLSStream>) throws(HTTP1ExchangeError) -> HTTP1Response {
        if job.streamedResponse != nil {
            return try connection.sendStreaming(job.request, body: job.requestBody, deadline: job.deadline)
        }
        return try connection.send(job.request, body: job.requestBody, deadline: job.deadline)
    }

    /// The kept connection if it can carry a request now; otherwise closes it and returns nil.
    private func takeKeptConnection(idleExpired: Bool) -> HTTP1Connection<TLSStream>? {
        guard var connection = kept.withLock({ $0.take() }) else { return nil }
        let reason: String
        if idleExpired {
            reason = "idle longer than the pool's expiry"
        } else if !connection.stream.isIdleAndOpen {
            reason = "the server closed it (or sent something unasked) while it was idle"
        } else {
            let stream = connection.stream
            let aborted = control.withLock { control -> Bool in
                control.close = { stream.close() }
                return control.aborted
            }
            if aborted { connection.close() }
            return connection
        }
        connection.close()
        events.record(.connectionDiscarded(host: host, port: port, reason: reason))
        return nil
    }

    /// Connects, handshakes and checks trust; nothing is written before the check passed.
    private func establish(_ job: ExchangeJob) throws -> HTTP1Connection<TLSStream> {
        let start = ContinuousClock.now
        let stream: TLSStream
        // Known before connecting, so a refusal can say the proxy may be inspecting TLS.
        let proxy = settings.connector.proxy(for: host, port: port)
        do {
            stream = try TLSStream.open(
                host: host, port: port, context: settings.context, timeouts: settings.timeouts,
                deadline: job.deadline, connector: settings.connector,
                identity: settings.identities.identity(for: host)
            ) { socket in
                let aborted = control.withLock { control -> Bool in
                    control.close = { socket.close() }
                    return control.aborted
                }
                if aborted { socket.close() }
            }
        } catch {
            // OpenSSL refused the certificate during the handshake: a trust check that failed.
            if let trust = error as? ServerTrustError {
                events.record(.trustEvaluated(host: host, matchedPin: nil, failure: trust.description))
            }
            throw ConnectionFailure.transportError(for: error, request: job.request, proxy: proxy)
        }
        events.record(.addressConnected(host: proxy?.host ?? host, address: stream.address, attempts: stream.connectAttempts))
        if let proxy { events.record(.tunnelOpened(proxy: proxy.redactedURL, host: host, port: port)) }
        events.record(
            .connectionOpened(
                host: host, port: port, tlsVersion: stream.protocolVersion,
                duration: ContinuousClock.now - start))
        do {
            let chain = try stream.chainToEvaluate(roots: settings.roots)
            try job.evaluator.evaluate(chain, forHost: host)
            // Evaluated even when nobody observes (only when a report-only evaluator applies: one
            // pin check per new connection), so an observed request reusing it still learns them.
            let reports = ReportOnlyEvaluator.failures(in: job.evaluator, chain: chain, host: self.host).map { failure in
                ConnectionEvent.pinMismatchReported(host: self.host, servedPins: chain.map(\.spkiPin), failure: failure)
            }
            // An HTTP/2 connection leaves this slot: its later streams do not get them (documented).
            unreported.withLock { $0 = job.collectsEvents || stream.selectedProtocol == "h2" ? [] : reports }
            for report in reports { events.record(report) }
            events.record(.trustEvaluated(host: host, matchedPin: MatchedPin.of(job.evaluator, chain: chain), failure: nil))
        } catch {
            stream.close()
            events.record(.trustEvaluated(host: host, matchedPin: nil, failure: String(describing: error)))
            throw ConnectionFailure.transportError(for: error, request: job.request, proxy: proxy)
        }
        // Offered only h2 and the server selected nothing: it does not speak HTTP/2.
        if !settings.context.protocols.contains("http/1.1"), stream.selectedProtocol != "h2" {
            stream.close()
            throw ConnectionFailure.filled(
                TransportError(
                    .tls,
                    message: "\(host):\(port) did not select HTTP/2 (ALPN h2), and "
                        + "only HTTP/2 is allowed (PinningTransport.Configuration.httpVersion is .http2Only)"), request: job.request)
        }
        job.onEstablished?(stream.selectedProtocol)
        // The connection outlives this job: its hook writes to the slot's collector, whichever
        // job is running (captured directly, not through self, which keeps the connection).
        let host = host
        let events = events
        return HTTP1Connection(
            stream: stream, limits: settings.limits,
            onEvent: { event in events.record(.http1(event, host: host)) },
            acceptsUnauthenticatedEnd: settings.acceptsBodyEndWithoutCloseNotify)
    }

    /// Closes the kept connection, if any.
    private func closeKeptConnection(reason: String) {
        guard var connection = kept.withLock({ $0.take() }) else { return }
        connection.close()
        events.record(.connectionDiscarded(host: host, port: port, reason: reason))
    }
}
