import Strata

/// The event loop on an ``HTTP2Connection``'s thread: commands from callers in, the server's
/// bytes through the ``HTTP2Multiplexer``, frames out as far as the socket takes them, timers,
/// and one `poll` when there is nothing to do.
///
/// Reads and writes never wait on their own: a server that stops reading cannot stall the
/// streams it is still sending to, and a flood of frames is read in bounded batches so writes
/// and timers keep their turn. Outgoing ciphertext is capped at ``outputHighWater``: request
/// bodies are only framed as the socket drains.
///
/// Whenever output waits for the socket, a write-progress deadline runs: a server that takes no
/// byte for the idle read timeout (for ``closingGrace`` once the connection is winding down with
/// no stream left) ends the connection. Without it, a server that stopped reading would keep an
/// unsendable GOAWAY, and with it the thread, the socket and a unit of the connection limit,
/// forever: nothing else is timed once no stream is open.
final class HTTP2ConnectionLoop {
    /// How much encrypted output may wait for the socket before no more frames are produced.
    static let outputHighWater = 256 * 1024
    /// How long a connection that failed keeps trying to deliver its GOAWAY before it closes.
    static let closingGrace: Duration = .seconds(1)
    /// Decrypted bytes read per step; also the most given to nghttp2 at once.
    static let readSize = 64 * 1024
    /// Buffers read (each up to ``readSize``: up to 256 KiB in all) per wake-up before writes
    /// and timers get their turn.
    static let readsPerTurn = 4
    /// Bytes framed per turn before reads and timers get theirs (a large upload with a large
    /// window must not starve the other streams' responses).
    static let writeBudget = 1 << 20

    private let connection: HTTP2Connection
    private let stream: TLSStream
    private let wake: WakeSignal
    private let multiplexer: HTTP2Multiplexer
    private let idleTimeout: Duration
    /// Who waits for each exchange, until its stream ended.
    private var completions: [UInt64: Waiting] = [:]

    private enum Waiting {
        /// A buffered exchange: the whole response.
        case response(HTTP2Connection.Completion)
        /// A streamed exchange before its head.
        case head(HTTP2Connection.HeadCompletion, end: HTTP2Connection.EndCompletion)
        /// A streamed exchange whose head was delivered: its body flows into its channel.
        case body(HTTP2Connection.EndCompletion)
    }
    private var idleSince: ContinuousClock.Instant?
    private var closingSince: ContinuousClock.Instant?
    /// The last time the socket took output, or found none waiting.
    private var outputMovedAt = ContinuousClock.now
    private var transportEnded = false
    /// The last read turn stopped at its limit: more may be buffered, without the socket showing it.
    private var unread = false
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)

    private init(
        connection: HTTP2Connection, stream: TLSStream, wake: WakeSignal, multiplexer: HTTP2Multiplexer,
        idleTimeout: Duration
    ) {
        self.connection = connection
        self.stream = stream
        self.wake = wake
        self.multiplexer = multiplexer
        self.idleTimeout = idleTimeout
    }

    deinit {
        buffer.deallocate()
    }

    /// Serves the connection until it is over, then closes the stream and fails whatever was
    /// queued too late as unprocessed (the caller sends it elsewhere).
    static func run(
        connection: HTTP2Connection, stream: TLSStream, wake: WakeSignal, limits: HTTPLimits,
        timing: HTTP2Multiplexer.Timing, idleTimeout: Duration, assumedMaxConcurrentStreams: Int
    ) {
        let multiplexer: HTTP2Multiplexer
        do throws(TransportError) {
            multiplexer = try HTTP2Multiplexer(
                limits: limits, timing: timing, now: .now, assumedMaxConcurrentStreams: assumedMaxConcurrentStreams)
        } catch {
            stream.close()
            failLate(connection.markClosed(), connection: connection, reason: error.message)
            return
        }
        let loop = HTTP2ConnectionLoop(
            connection: connection, stream: stream, wake: wake, multiplexer: multiplexer,
            idleTimeout: idleTimeout)
        loop.serve()
        stream.close()
        // A TLS failure (the server's alert) would meet a retry on a new connection too.
        let tlsFailure = multiplexer.connectionFailure.map(\.error).flatMap { $0.kind == .tls ? $0 : nil }
        failLate(
            connection.markClosed(tlsFailure: tlsFailure), connection: connection, reason: "the connection closed",
            tlsFailure: tlsFailure)
        // Anything still waiting (nothing should be) must hear back.
        let failure = HTTP2StreamFailure(
            error: TransportError(.connectionLost, message: "the connection closed"),
            connectionFailed: true)
        for (_, waiting) in loop.completions {
            switch waiting {
            case let .response(completion): completion(.failure(failure), [])
            case let .head(completion, _): completion(.failure(failure), [])
            case let .body(end): end([])
            }
        }
    }

    private static func failLate(
        _ commands: [HTTP2Connection.Command], connection: HTTP2Connection, reason: String,
        tlsFailure: TransportError? = nil
    ) {
        for command in commands {
            let exchange: HTTP2Multiplexer.Exchange
            let complete: (HTTP2StreamFailure) -> Void
            switch command {
            case let .open(opened, completion):
                (exchange, complete) = (opened, { completion(.failure($0), []) })
            case let .openStreamed(opened, completion, _):
                (exchange, complete) = (opened, { completion(.failure($0), []) })
            case .cancel, .readerDemand, .requestBodyAvailable, .shutDown:
                continue
            }
            connection.release()
            if var tlsFailure {
                (tlsFailure.method, tlsFailure.url) = (exchange.request.method, exchange.request.url)
                complete(HTTP2StreamFailure(error: tlsFailure, connectionFailed: true))
                continue
            }
            complete(
                HTTP2StreamFailure(
                    error: TransportError(
                        .connectionLost, method: exchange.request.method, url: exchange.request.url,
                        message: "not sent: \(reason)"),
                    unprocessed: true))
        }
    }

    private func serve() {
        while true {
            connection.countTurn()
            let now = ContinuousClock.now
            apply(connection.takeCommands(), now: now)
            multiplexer.tick(now: now)
            let unwritten = write(now: now)
            endIfOutputStalled(now: now)
            deliver()
            retireWhenIdle(now: now)
            if isOver(now: now) { return }
            // Records already decrypted-in-waiting do not make the socket readable: read on first.
            if unread || unwritten {
                unread = read()
            } else {
                let readiness = wake.wait(
                    socket: stream.descriptor, writable: stream.pendingOutputBytes > 0,
                    timeout: nextTimeout(now: now))
                if readiness.readable { unread = read() }
            }
            deliver()
        }
    }

    private func apply(_ commands: [HTTP2Connection.Command], now: ContinuousClock.Instant) {
        for command in commands {
            switch command {
            case let .open(exchange, completion):
                completions[exchange.id] = .response(completion)
                multiplexer.open(exchange, now: now)
            case let .openStreamed(exchange, completion, end):
                completions[exchange.id] = .head(completion, end: end)
                multiplexer.open(exchange, now: now)
            case let .readerDemand(id):
                multiplexer.readerDemand(id, now: now)
            case let .requestBodyAvailable(id):
                multiplexer.requestBodyAvailable(id, now: now)
            case let .cancel(id):
                guard let waiting = completions.removeValue(forKey: id) else { continue }
                connection.release()
                multiplexer.cancel(id)
                // The caller gave up waiting for the rest; nothing else is told for a cancel.
                if case let .body(end) = waiting { end([]) }
            case .shutDown:
                multiplexer.shutDown()
            }
        }
    }

    /// Frames what the multiplexer has queued and sends it, until the socket stops taking
    /// bytes, nothing is left, or ``writeBudget`` bytes went out this turn.
    ///
    /// - Returns: Whether frames are still waiting while the socket could take more (the turn's
    ///   budget ran out), so the loop must come back without waiting.
    private func write(now: ContinuousClock.Instant) -> Bool {
        guard !transportEnded else { return false }
        var written = 0
        do throws(TransportError) {
            while true {
                while stream.pendingOutputBytes < Self.outputHighWater, multiplexer.wantsWrite {
                    var failure: TransportError?
                    let stream = stream
                    let produced = multiplexer.produce(upTo: Self.readSize, now: now) { bytes in
                        guard failure == nil else { return }
                        do throws(TransportError) { try stream.encrypt(bytes) } catch { failure = error }
                    }
                    if let failure { throw failure }
                    if produced == 0 { break }
                    written += produced
                }
                // The socket is full (poll for POLLOUT), or nothing is left to frame.
                guard try flush(now: now), multiplexer.wantsWrite else { return false }
                if written >= Self.writeBudget { return true }
            }
        } catch {
            end(error)
            return false
        }
    }

    /// Sends waiting ciphertext as far as the socket takes it, noting whether output moved.
    ///
    /// - Returns: Whether everything was sent.
    private func flush(now: ContinuousClock.Instant) throws(TransportError) -> Bool {
        let waiting = stream.pendingOutputBytes
        let sentAll = try stream.flushAvailable()
        if sentAll || stream.pendingOutputBytes < waiting { outputMovedAt = now }
        return sentAll
    }

    /// When output that waits for the socket must have moved, or nil when none waits.
    private func outputDeadline() -> ContinuousClock.Instant? {
        guard !transportEnded, stream.pendingOutputBytes > 0 else { return nil }
        return outputMovedAt + writeTimeout
    }

    /// How long output may wait without the socket taking a byte: the idle read timeout while
    /// streams may still be served, ``closingGrace`` once only a GOAWAY or resets are left to send.
    private var writeTimeout: Duration {
        multiplexer.acceptsStreams || multiplexer.openStreamCount > 0 ? multiplexer.timing.idleTimeout : Self.closingGrace
    }

    /// Ends the connection when its output stopped moving past ``outputDeadline()``: the server
    /// stopped reading, and streams (or the connection's end) can never make progress.
    private func endIfOutputStalled(now: ContinuousClock.Instant) {
        guard let deadline = outputDeadline(), now >= deadline else { return }
        end(
            TransportError(
                .timedOut,
                message: "the server at \(connection.host):\(connection.port) took no data for "
                    + "\(writeTimeout) while \(stream.pendingOutputBytes) bytes waited to be sent; the HTTP/2 connection was closed"))
    }

    /// Reads and processes up to ``readsPerTurn`` buffers of what has arrived.
    ///
    /// - Returns: Whether more may be waiting (the turn ended before the reads ran dry).
    private func read() -> Bool {
        guard !transportEnded else { return false }
        for _ in 0..<Self.readsPerTurn {
            // The buffer is filled with what has arrived (a TLS read gives one 16 KiB record),
            // then given to nghttp2 at once: a stream's reader gets one piece, and one wake-up,
            // per buffer instead of one per record.
            var filled = 0
            var stop: ReadStop?
            while filled < buffer.count, stop == nil {
                do throws(TransportError) {
                    switch try stream.readAvailable(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
                    case let .bytes(count): filled += count
                    case .wouldBlock: stop = .dry
                    case .closed: stop = .ended(nil)
                    }
                } catch {
                    stop = .ended(error)
                }
            }
            // What arrived before the end or a failure is processed first (a GOAWAY, a last frame).
            if filled > 0 { multiplexer.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]), now: .now) }
            switch stop {
            case nil: continue
            case .dry: return false
            case .ended(let failure):
                end(failure)
                return false
            }
        }
        return true
    }

    /// Why a read turn stopped filling the buffer: nothing more has arrived, or the transport
    /// ended (the server closed it, or it failed).
    private enum ReadStop {
        case dry
        case ended(TransportError?)
    }

    private func end(_ failure: TransportError?) {
        transportEnded = true
        multiplexer.transportEnded(failure)
    }

    /// Hands finished exchanges to their callers, giving their streams back first, and publishes
    /// the connection's state before any caller can act on it (a request refused after a GOAWAY
    /// must not be routed here again).
    private func deliver() {
        connection.update(maxConcurrentStreams: multiplexer.maxConcurrentStreams, accepting: multiplexer.acceptsStreams)
        // Heads first: a stream whose head and end came in one read ends after its head.
        for head in multiplexer.takeHeads() {
            guard case let .head(completion, end) = completions[head.id] else { continue }
            completions[head.id] = .body(end)
            completion(.success(head.head), head.events)
        }
        for finished in multiplexer.takeFinished() {
            guard let waiting = completions.removeValue(forKey: finished.id) else { continue }
            connection.release()
            let events = finished.events
            switch waiting {
            case let .response(completion):
                completion(finished.result, events)
            case let .head(completion, _):
                completion(
                    finished.result.map { HTTPResponseHead(statusCode: $0.statusCode, headers: $0.headers, url: nil) },
                    events)
            case let .body(end):
                end(events) // the body's reader learned the end through its channel
            }
        }
    }

    /// Starts closing a connection that carried nothing for `idleTimeout`.
    private func retireWhenIdle(now: ContinuousClock.Instant) {
        guard completions.isEmpty, multiplexer.acceptsStreams else {
            idleSince = nil
            return
        }
        let since = idleSince ?? now
        idleSince = since
        guard now - since >= idleTimeout else { return }
        if connection.retireIfIdle() {
            multiplexer.shutDown()
        } else {
            // A stream is claimed and its request is on its way (a loaded machine can take longer
            // than the idle timeout to send it): idle again from now. Keeping the old start would
            // make every wait until the request arrives zero, and the loop would spin on a core.
            idleSince = now
        }
    }

    private func isOver(now: ContinuousClock.Instant) -> Bool {
        if transportEnded { return true }
        if multiplexer.connectionFailure != nil {
            let since = closingSince ?? now
            closingSince = since
            if now - since >= Self.closingGrace { return true }
        }
        return multiplexer.isFinished && stream.pendingOutputBytes == 0
    }

    private func nextTimeout(now: ContinuousClock.Instant) -> Duration? {
        var deadlines = [multiplexer.nextDeadline()].compactMap { $0 }
        if let idleSince { deadlines.append(idleSince + idleTimeout) }
        if let closingSince { deadlines.append(closingSince + Self.closingGrace) }
        if let outputDeadline = outputDeadline() { deadlines.append(outputDeadline) }
        return deadlines.min().map { max($0 - now, .zero) }
    }
}
