#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Synchronization

/// Sends one request (no redirects) to a pinned host over the pool's verified connections,
/// bridging the caller's task and the connection's thread.
final class PinnedClient: Sendable {
    private let pool: ConnectionPool
    private let requestTimeout: Duration
    private let jobIDs = Atomic<UInt64>(0)

    init(settings: ConnectionSettings, configuration: PinningTransport.Configuration) {
        pool = ConnectionPool(settings: settings, maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                              idleTimeout: configuration.idleConnectionTimeout)
        requestTimeout = configuration.requestTimeout
    }

    deinit {
        pool.shutDown()
    }

    /// How many connections to `host:port` exist and how many requests wait for one.
    func poolCounts(host: String, port: Int) -> (open: Int, waiting: Int) {
        pool.counts(host: host, port: port)
    }

    /// How many hosts the pool has an entry for.
    var poolHostCount: Int { pool.hostCount }

    /// Sends `request` to `host:port`, whose new connections must pass `evaluator`, within the
    /// request timeout (counted from this call: waiting for a connection included).
    ///
    /// - Throws: `TransportError` (``TransportError/Kind/tls`` for refused certificates,
    ///   ``TransportError/Kind/invalidRequest`` for a request HTTP/1.1 cannot carry,
    ///   ``TransportError/Kind/timedOut`` when the deadline passes, even while waiting for a
    ///   connection), or `CancellationError`.
    func send(_ request: URLRequest, host: CanonicalHost, port: Int,
              evaluator: any ServerTrustEvaluator) async throws -> HTTPResponse {
        try Task.checkCancellation()
        // The whole-request timeout starts now, so waiting for a free connection counts too; the
        // caller's RequestDeadline (an endpoint's timeout), when earlier, wins.
        var deadline = ContinuousClock.now + requestTimeout
        if let requestDeadline = RequestDeadline.current {
            guard requestDeadline > .now else {
                throw RequestDeadline.timedOut(method: HTTPMethod(request), url: request.url)
            }
            deadline = min(deadline, requestDeadline)
        }
        let encoded: HTTP1Request
        do {
            encoded = try HTTP1RequestEncoder.encode(request)
        } catch {
            throw TransportError(.invalidRequest, method: HTTPMethod(request), url: request.url,
                                 message: error.description, underlying: error)
        }
        let lease = try await pool.acquire(host: host.name, port: port, deadline: deadline)
        let connection = lease.connection
        let jobID = jobIDs.wrappingAdd(1, ordering: .relaxed).newValue
        connection.begin(jobID: jobID)
        let job = ExchangeJob(request: encoded, evaluator: evaluator, deadline: deadline, idleExpired: lease.idleExpired,
                              collectsEvents: TransportEvents.isObserved)
        let completion = ExchangeCompletion()
        let pool = pool
        connection.submit(job) { report in
            pool.release(connection, keepAlive: report.keepAlive)
            completion.finish(.success(report))
        }
        let report = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { completion.install($0) }
        } onCancel: {
            completion.finish(.failure(CancellationError()))
            connection.abort(jobID: jobID)
        }
        for event in report.events { TransportEvents.emit(event) }
        return try report.result.get().httpResponse(url: request.url)
    }
}
