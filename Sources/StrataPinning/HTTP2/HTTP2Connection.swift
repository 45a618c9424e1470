import Foundation
import Strata
import Synchronization

/// One verified HTTP/2 connection to a pinned host, carrying many requests at once as streams.
///
/// Its TLS stream was opened, handshaken and checked against the host's pins before it got
/// here; nothing else is ever written on it. All I/O happens on the connection's own thread,
/// which waits in one `poll` on the socket and a ``WakeSignal`` (never on Swift's cooperative
/// pool) and runs an ``HTTP2Multiplexer``. Callers talk to it through this thread-safe facade:
/// - ``reserve(beyondLimit:)`` claims a stream (the pool does, under its own lock), then
///   ``send(_:deadline:completion:)`` queues the request; the completion runs on the
///   connection's thread, exactly once.
///   Or ``stream(_:deadline:collectsEvents:)`` runs a request with its response streamed: the
///   head as soon as it arrives, the body through a ``BodyChannel`` whose reading opens the
///   flow-control windows. Either way a file or stream request body is read as DATA frames go
///   out (``HTTP2RequestBodyPipe``), never collected.
/// - ``cancel(_:)`` abandons one exchange: its stream is reset, the others carry on.
/// - The connection closes itself after `idleTimeout` without streams, when the server ends it,
///   or after ``shutDown()`` once its streams finished; it then tells `onClosed`.
final class HTTP2Connection: Sendable {
    /// Told how the exchange ended, and what happened to it (empty unless it collected events).
    typealias Completion = @Sendable (Result<HTTP2Response, HTTP2StreamFailure>, [HTTP2Event]) -> Void

    /// Told a streamed exchange's response head (its body then flows into the exchange's
    /// channel), or why it failed before one arrived.
    typealias HeadCompletion = @Sendable (Result<HTTPResponseHead, HTTP2StreamFailure>, [HTTP2Event]) -> Void

    /// Told that a streamed exchange whose head was delivered is over on the connection (its
    /// stream ended, was reset, or the connection closed), with its events since the head. Not
    /// called when the head never came (the ``HeadCompletion`` failed instead).
    typealias EndCompletion = @Sendable ([HTTP2Event]) -> Void

    enum Command: Sendable {
        case open(HTTP2Multiplexer.Exchange, Completion)
        case openStreamed(HTTP2Multiplexer.Exchange, head: HeadCompletion, end: EndCompletion)
        case cancel(UInt64)
        /// The reader of exchange `id`'s response body drained it or released it.
        case readerDemand(UInt64)
        /// The caller handed more of exchange `id`'s request body.
        case requestBodyAvailable(UInt64)
        case shutDown
    }

    private struct Shared {
        var commands: [Command] = []
        /// Streams claimed and not yet finished.
        var reserved = 0
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, or the limit assumed until they arrive.
        var maxConcurrentStreams: Int
        var accepting = true
        var closed = false
        var nextID: UInt64 = 0
        /// Its unit of the connection limit went to another connection (``retireForEviction()``).
        var unitHandedOver = false
        /// The TLS failure that ended the connection (such as the server's alert refusing the
        /// client certificate): requests that come too late get it, not a retry that would meet it again.
        var tlsFailure: TransportError?
    }

    /// The pool key: which host and port this connection reaches.
    let host: String
    let port: Int
    private let shared: LockedValue<Shared>
    private let wake: WakeSignal
    /// Turns of the connection's loop so far: a loop that spins shows here (for tests).
    private let loopTurns = Atomic<UInt64>(0)

    private init(host: String, port: Int, wake: WakeSignal, assumedMaxConcurrentStreams: Int) {
        self.host = host
        self.port = port
        self.wake = wake
        shared = LockedValue(Shared(maxConcurrentStreams: assumedMaxConcurrentStreams))
    }

    /// Starts serving `stream`, a verified TLS connection whose server selected `h2`, on one
    /// unit of `threads` the caller already holds (the unit of the slot that opened `stream`):
    /// the connection owns it from here and gives it back when its thread ends, so a connection
    /// that finished its handshake never has to compete for a unit again.
    ///
    /// - Parameters:
    ///   - idleTimeout: How long the connection stays open without streams.
    ///   - assumedMaxConcurrentStreams: How many streams the server is taken to accept until its
    ///     SETTINGS arrive: no more are claimed or sent before then.
    ///   - onClosed: Called once, on the connection's thread, after it closed.
    /// - Throws: `TransportError` `cannotConnect` when the process cannot make the wake-up pair;
    ///   `stream` is closed and the unit given back then.
    static func start(
        stream: TLSStream, host: String, port: Int, limits: HTTPLimits, owningUnitOf threads: ConnectionThreadLimit,
        timing: HTTP2Multiplexer.Timing, idleTimeout: Duration,
        assumedMaxConcurrentStreams: Int,
        onClosed: @escaping @Sendable (HTTP2Connection) -> Void
    ) throws(TransportError) -> HTTP2Connection {
        let wake: WakeSignal
        do {
            wake = try WakeSignal()
        } catch {
            threads.release()
            stream.close()
            throw error
        }
        let connection = HTTP2Connection(
            host: host, port: port, wake: wake, assumedMaxConcurrentStreams: assumedMaxConcurrentStreams)
        let thread = Thread {
            HTTP2ConnectionLoop.run(
                connection: connection, stream: stream, wake: wake, limits: limits,
                timing: timing, idleTimeout: idleTimeout, assumedMaxConcurrentStreams: assumedMaxConcurrentStreams)
            if !connection.shared.withLock({ $0.unitHandedOver }) { threads.release() }
            onClosed(connection)
        }
        thread.name = "strata-pinning h2 \(host):\(port)"
        thread.start()
        return connection
    }

    // MARK: - Callers

    /// Claims a stream if the connection accepts new ones and, unless `beyondLimit`, has fewer
    /// than the server's SETTINGS_MAX_CONCURRENT_STREAMS in use. Beyond the limit, nghttp2
    /// holds the request until a stream finishes.
    func reserve(beyondLimit: Bool) -> Bool {
        shared.withLock { shared in
            guard shared.accepting, !shared.closed,
                beyondLimit || shared.reserved < shared.maxConcurrentStreams
            else { return false }
            shared.reserved += 1
            return true
        }
    }

    /// Streams claimed, the server's limit, and whether new streams are accepted.
    var load: (reserved: Int, maxConcurrentStreams: Int, accepting: Bool) {
        shared.withLock { ($0.reserved, $0.maxConcurrentStreams, $0.accepting && !$0.closed) }
    }

    /// Queues `request` on a stream claimed with ``reserve(beyondLimit:)``; `collectsEvents`
    /// when the caller observes events.
    ///
    /// - Returns: The exchange's identifier, for ``cancel(_:)``.
    func send(
        _ request: HTTP2Request, deadline: ContinuousClock.Instant, collectsEvents: Bool,
        completion: @escaping Completion
    ) -> UInt64 {
        let id = newExchangeID(for: request)
        let exchange = HTTP2Multiplexer.Exchange(id: id, request: request, deadline: deadline, collectsEvents: collectsEvents)
        submit(.open(exchange, completion), request: request) { completion(.failure($0), []) }
        return id
    }

    /// Runs `request` as a stream claimed with ``reserve(beyondLimit:)``, and returns as soon as
    /// the response head arrived. A request body that is a file or a stream is read as DATA
    /// frames go out (at most ``HTTP2RequestBodyPipe/maxQueuedBytes`` waiting), so the head may
    /// come before the body was all sent (a server answering early); the stream is then reset.
    ///
    /// The response body comes through the returned ``HTTP2ResponseStream/channel``: read it
    /// with `body(length:)`, then call ``HTTP2ResponseStream/release()`` when done, at the end
    /// or early, and wait for ``HTTP2ResponseStream/ended``. The stream's and the connection's
    /// receive windows reopen only as the reader drains the channel, so a reader that stops
    /// holds at most the stream window (``HTTP2Multiplexer/streamWindowBytes``) plus the
    /// channel's high watermark of this body in memory. Releasing before the end resets the
    /// stream with CANCEL; the connection stays in use for other streams. A failure after the
    /// head (a reset, the connection lost, the deadline or the idle timeout) is thrown by the
    /// body's reader.
    ///
    /// `deadline` bounds the whole exchange, the body included; the idle timeout bounds each
    /// wait for the server while the reader keeps up.
    ///
    /// - Returns: The streamed response, or an ``HTTP2StreamFailure`` when the stream failed
    ///   before its head, exactly as for ``send(_:deadline:collectsEvents:completion:)``
    ///   (`unprocessed` after REFUSED_STREAM, a GOAWAY above it or a request never sent: the
    ///   caller may send it again elsewhere, with ``HTTP2Request/forResend()``; `invalidRequest`
    ///   for a body that could not be read, the stream reset); with the events up to the head or
    ///   the failure either way.
    /// - Throws: `CancellationError` when the task is cancelled (the stream is reset).
    func stream(_ request: HTTP2Request, deadline: ContinuousClock.Instant, collectsEvents: Bool) async throws
        -> (result: Result<HTTP2ResponseStream, HTTP2StreamFailure>, events: [HTTP2Event])
    {
        let id = newExchangeID(for: request)
        let channel = BodyChannel()
        channel.onDemand { [weak self] in self?.enqueue(.readerDemand(id)) }
        let head = ExchangeCompletion<(Result<HTTPResponseHead, HTTP2StreamFailure>, [HTTP2Event])>()
        let ended = ExchangeCompletion<[HTTP2Event]>()
        let exchange = HTTP2Multiplexer.Exchange(
            id: id, request: request, deadline: deadline, collectsEvents: collectsEvents,
            responseBody: channel)
        let headCompletion: HeadCompletion = { result, events in
            // A caller that went away meanwhile will never read the body: let the stream go.
            if !head.finish(.success((result, events))), case .success = result { channel.release() }
        }
        submit(.openStreamed(exchange, head: headCompletion, end: { ended.finish(.success($0)) }), request: request) {
            headCompletion(.failure($0), [])
        }
        let (result, events) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head.install($0) }
        } onCancel: {
            head.finish(.failure(CancellationError()))
            cancel(id)
        }
        return (result.map { HTTP2ResponseStream(id: id, head: $0, channel: channel, ended: ended, connection: self) }, events)
    }

    /// A new exchange's identifier; a streamed request body's pipe wakes the connection's
    /// thread for it as chunks come.
    private func newExchangeID(for request: HTTP2Request) -> UInt64 {
        let id = shared.withLock { shared -> UInt64 in
            shared.nextID += 1
            return shared.nextID
        }
        if case let .streamed(pipe, _) = request.body {
            pipe.onAvailable { [weak self] in self?.enqueue(.requestBodyAvailable(id)) }
        }
        return id
    }

    /// Queues `command`, which opens `request`'s stream, or fails it at once through `fail` when
    /// the connection already closed.
    private func submit(_ command: Command, request: HTTP2Request, fail: (HTTP2StreamFailure) -> Void) {
        let (queued, tlsFailure) = shared.withLock { shared -> (Bool, TransportError?) in
            guard !shared.closed else {
                shared.reserved -= 1
                return (false, shared.tlsFailure)
            }
            shared.commands.append(command)
            return (true, nil)
        }
        if var tlsFailure {
            (tlsFailure.method, tlsFailure.url) = (request.method, request.url)
            return fail(HTTP2StreamFailure(error: tlsFailure, connectionFailed: true))
        }
        guard queued else {
            return fail(
                HTTP2StreamFailure(
                    error: TransportError(
                        .connectionLost, method: request.method, url: request.url,
                        message: "the HTTP/2 connection to \(host):\(port) closed before the request was sent"),
                    unprocessed: true))
        }
        wake.signal()
    }

    /// Hands `command` to the connection's thread and wakes it.
    private func enqueue(_ command: Command) {
        shared.withLock { $0.commands.append(command) }
        wake.signal()
    }

    /// Abandons exchange `id`: its stream is reset with CANCEL and its completion never runs.
    func cancel(_ id: UInt64) {
        shared.withLock { $0.commands.append(.cancel(id)) }
        wake.signal()
    }

    /// Closes the connection if it carries nothing and no stream is claimed, handing its unit
    /// of the process-wide connection limit to the caller (who opens a connection with it); its
    /// thread ends right after, without giving the unit back.
    ///
    /// - Returns: Whether it was idle and now closes.
    func retireForEviction() -> Bool {
        let retired = shared.withLock { shared -> Bool in
            guard shared.accepting, !shared.closed, shared.reserved == 0, shared.commands.isEmpty else { return false }
            shared.accepting = false
            shared.unitHandedOver = true
            shared.commands.append(.shutDown)
            return true
        }
        if retired { wake.signal() }
        return retired
    }

    /// Sends GOAWAY: no new stream starts; the connection closes once its streams finished.
    func shutDown() {
        shared.withLock { shared in
            shared.accepting = false
            shared.commands.append(.shutDown)
        }
        wake.signal()
    }

    /// How many turns the connection's loop has made (each a wake-up, a timer or an I/O step).
    var turns: UInt64 { loopTurns.load(ordering: .relaxed) }

    // MARK: - The connection's thread

    /// Counts one turn of the loop.
    func countTurn() {
        loopTurns.add(1, ordering: .relaxed)
    }

    /// The commands queued since the last call.
    func takeCommands() -> [Command] {
        shared.withLock { shared in
            defer { shared.commands.removeAll() }
            return shared.commands
        }
    }

    /// Gives back the stream claimed for a finished or cancelled exchange.
    func release() {
        shared.withLock { $0.reserved -= 1 }
    }

    /// Publishes what the multiplexer knows for the pool's decisions.
    func update(maxConcurrentStreams: Int, accepting: Bool) {
        shared.withLock { shared in
            shared.maxConcurrentStreams = maxConcurrentStreams
            shared.accepting = shared.accepting && accepting
        }
    }

    /// Stops accepting streams if none is claimed or queued; returns whether it stopped.
    func retireIfIdle() -> Bool {
        shared.withLock { shared in
            guard shared.reserved == 0, shared.commands.isEmpty else { return false }
            shared.accepting = false
            return true
        }
    }

    /// Marks the connection closed (by `tlsFailure`, when a TLS failure ended it) and returns the
    /// requests that arrived too late to be sent.
    func markClosed(tlsFailure: TransportError? = nil) -> [Command] {
        shared.withLock { shared in
            shared.closed = true
            shared.tlsFailure = tlsFailure
            shared.accepting = false
            defer { shared.commands.removeAll() }
            return shared.commands
        }
    }
}

/// A streamed HTTP/2 response whose head arrived: its body flows into ``channel`` as the reader
/// takes it (see ``HTTP2Connection/stream(_:deadline:collectsEvents:)``).
struct HTTP2ResponseStream: Sendable {
    /// The exchange, for ``HTTP2Connection/cancel(_:)``.
    let id: UInt64
    let head: HTTPResponseHead
    /// Where the body arrives; read it with `body(length:)`.
    let channel: BodyChannel
    /// Finished once the stream is over on the connection (ended, reset, or the connection
    /// closed), with its events since the head: after it, the stream is given back.
    let ended: ExchangeCompletion<[HTTP2Event]>
    let connection: HTTP2Connection

    /// The body's length as the reader should expect it: none for a response that has no body
    /// (to `HEAD`, or 204 and 304, whatever `content-length` says; nghttp2 holds the server to
    /// that), else `content-length` when it is one number (nghttp2 resets a stream whose DATA
    /// differs from it).
    func bodyLength(method: HTTPMethod) -> Int64? {
        if method == .head || head.statusCode == 204 || head.statusCode == 304 { return 0 }
        return head.headers["content-length"].flatMap { Int64($0) }
    }

    /// The reader is done with the body (at its end, or early: the stream is then reset with
    /// CANCEL and what it received is credited to the connection's window); waits until the
    /// stream is over on the connection (its place given back), and returns its events since
    /// the head. Cancelling the calling task cancels the stream, which the connection's thread
    /// does at its next turn: the wait stays that short.
    func release() async -> [HTTP2Event] {
        channel.release()
        // The connection's thread always ends the wait: at the stream's end, its cancel, or the
        // connection's close (``HTTP2Connection/EndCompletion``), so no failure comes here.
        let events = try? await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { ended.install($0) }
        } onCancel: {
            connection.cancel(id)
        }
        return events ?? []
    }
}
