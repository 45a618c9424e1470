import Foundation
import Strata

/// The frame-to-response mapping of one HTTP/2 connection: many requests as streams, each
/// ending in exactly one ``HTTP2Response`` or ``HTTP2StreamFailure``, whatever the server sends.
///
/// No I/O and no threads: the connection's loop feeds it the server's bytes
/// (``receive(_:now:)``), drains its output (``produce(upTo:into:)``), gives it the time
/// (``tick(now:)``) and collects finished streams (``takeFinished()``). Time is always passed
/// in, so every rule below is tested without a network or a real clock.
///
/// Rules (RFC 9113 unless noted):
/// - A stream completes on END_STREAM; interim `1xx` header blocks are skipped (at most
///   ``HTTPLimits/maxInterimResponses``); a later header block is the trailer section.
/// - An exchange is buffered (one ``Finished`` with the whole body) or streamed (it has a
///   `responseBody` channel): then its head is reported by ``takeHeads()`` as soon as the final
///   header block is complete, and its DATA goes to the channel as it arrives.
/// - Flow control follows the reader (nghttp2's automatic WINDOW_UPDATE is off): buffered
///   bytes are acknowledged as they arrive (the body limit bounds them); streamed bytes as soon
///   as the channel takes them below its high watermark, and once it asks to pause, not until
///   the reader drained it (``readerDemand(_:)``). So a streamed body's unread bytes are bounded
///   by the stream window plus the channel's watermark, and all streams' by the connection
///   window. A reader that releases the body early gets its stream reset with CANCEL; bytes
///   already in flight for it are acknowledged on arrival, so other streams are not starved.
/// - Limits are enforced as bytes arrive: header lists in nghttp2's callbacks, bodies here (a
///   `content-length` above ``HTTPLimits/maxResponseBodyBytes`` fails at the head). A stream that breaks
///   one is cancelled (RST_STREAM CANCEL); the other streams carry on.
/// - A stream the server resets fails with ``HTTP2Error/streamReset(_:)``; REFUSED_STREAM, a
///   stream above a GOAWAY's last stream identifier, and a request never sent are
///   ``HTTP2StreamFailure/unprocessed`` (§8.7), to be retried elsewhere, unless its response
///   head already arrived.
/// - A connection error (nghttp2 found the server breaking the protocol) fails every stream
///   with ``HTTP2Error/connectionError(_:reason:)`` and ends the connection.
/// - Each stream has the whole-request deadline, until its end (a streamed body included, read
///   or not), and, once its HEADERS went out, the idle timeout: no frame sent or received for
///   it for that long fails it with `timedOut` (not counted while its reader is behind, nor
///   while its streamed request body waits for the caller's next bytes: the server can do
///   nothing then).
/// - A stream whose response ended while its request body was still going out is reset with
///   CANCEL (§8.1: the server answered early), so its request body stops.
/// - Liveness by PING: while streams are open and nothing arrived for `pingInterval`, a PING is
///   sent; if still nothing arrives within another `pingInterval`, the connection is dead and
///   every stream fails with ``HTTP2Error/pingUnanswered(silence:)``.
final class HTTP2Multiplexer {
    /// How long things may take.
    struct Timing: Sendable {
        /// The longest wait for progress on one stream once its request was sent.
        var idleTimeout: Duration
        /// The quiet time after which a busy connection is checked with a PING.
        var pingInterval: Duration
    }

    /// A request to run as a stream.
    struct Exchange: Sendable {
        /// The caller's identifier for the exchange (unique per connection).
        var id: UInt64
        var request: HTTP2Request
        /// When the whole request must be over.
        var deadline: ContinuousClock.Instant
        /// Whether the caller observes events, so the exchange's are worth collecting.
        var collectsEvents = false
        /// Where a streamed response's body goes; nil for a buffered exchange.
        var responseBody: BodyChannel?
    }

    /// The head of a streamed exchange's response, reported once: its body follows in the
    /// exchange's channel, and its stream's end is reported later as a ``Finished``.
    struct Head: Sendable {
        var id: UInt64
        var streamID: Int32
        var head: HTTPResponseHead
        /// What happened to the exchange until now, when it collects events.
        var events: [HTTP2Event]
    }

    /// How one exchange ended.
    struct Finished: Sendable {
        var id: UInt64
        var streamID: Int32
        var result: Result<HTTP2Response, HTTP2StreamFailure>
        /// What happened to the exchange (connection-wide events included), when it collected them.
        var events: [HTTP2Event]
    }

    private struct Stream {
        let id: UInt64
        let method: HTTPMethod
        let url: URL?
        let deadline: ContinuousClock.Instant
        /// When its HEADERS went out; the idle timeout counts from then.
        var sentAt: ContinuousClock.Instant?
        var lastProgress: ContinuousClock.Instant
        var statusCode: Int?
        var headers = HTTPHeaders()
        var trailers = HTTPHeaders()
        var interimStatusCodes: [Int] = []
        var body = Data()
        /// Body bytes received (streamed exchanges keep none).
        var bodyBytes = 0
        /// A streamed request body still being sent.
        var requestBody: HTTP2RequestBodyPipe?
    }

    /// How far a streamed exchange's reader has taken its body: bytes handed to the channel
    /// while it asked to pause are acknowledged only when the reader drained it.
    private struct Flow {
        let streamID: Int32
        let channel: BodyChannel
        var headDelivered = false
        /// The channel asked to pause: bytes are no longer acknowledged to the stream as they arrive.
        var paused = false
        /// Bytes received and not yet acknowledged to the stream's window
        /// (``NGHTTP2Session/consumeStream(streamID:bytes:)``); the connection's was credited.
        var unacknowledged = 0
    }

    private let session: NGHTTP2Session
    private let limits: HTTPLimits
    /// How long things may take (the connection's loop bounds a stalled write by it too).
    let timing: Timing
    /// Events of the exchanges that collect them, by exchange.
    private var eventLogs: [UInt64: [HTTP2Event]] = [:]
    private var streams: [Int32: Stream] = [:]
    private var streamIDs: [UInt64: Int32] = [:]
    private var finished: [Finished] = []
    private var heads: [Head] = []
    /// Streamed exchanges, by exchange, from their start until their reader is done with the
    /// window (the stream may have ended before).
    private var flows: [UInt64: Flow] = [:]
    /// Streamed request bodies whose reading failed while nghttp2 asked for bytes.
    private var failedRequestBodies: [HTTP2RequestBodyPipe] = []
    private var lastReceived: ContinuousClock.Instant
    private var pingSentAt: ContinuousClock.Instant?
    /// The GOAWAY the server sent (the latest, with the lowest last stream identifier), if any.
    private(set) var goAway: (lastStreamID: Int32, code: HTTP2ErrorCode, debug: String)?
    /// The SETTINGS_MAX_CONCURRENT_STREAMS last recorded as an event, so a repeated SETTINGS
    /// that changes nothing is not recorded again.
    private var recordedMaxConcurrentStreams: Int?
    /// A SETTINGS event that arrived while no stream collected events (the server's first
    /// SETTINGS usually does): it goes to the next stream that does, not to nobody.
    private var settingsNotYetRecorded: HTTP2Event?
    /// Why the connection is over, once it is.
    private(set) var connectionFailure: HTTP2StreamFailure?
    /// Whether ``shutDown()`` was called.
    private var isShuttingDown = false

    /// Creates the mapping for a new connection; the client preface is the first output.
    ///
    /// - Parameter assumedMaxConcurrentStreams: How many streams the server is taken to accept
    ///   until its SETTINGS arrive (nghttp2 holds the others until then).
    /// - Throws: `TransportError` when nghttp2 cannot set up a session.
    init(
        limits: HTTPLimits, timing: Timing, now: ContinuousClock.Instant,
        assumedMaxConcurrentStreams: Int = HTTP2Multiplexer.assumedMaxConcurrentStreams
    ) throws(TransportError) {
        do {
            session = try NGHTTP2Session(
                settings: NGHTTP2Session.Settings(
                    streamWindowBytes: Self.streamWindowBytes, connectionWindowBytes: Self.connectionWindowBytes,
                    maxHeaderListBytes: limits.maxHeaderBlockBytes, maxHeaderCount: limits.maxHeaderCount,
                    assumedMaxConcurrentStreams: assumedMaxConcurrentStreams))
        } catch {
            throw TransportError(.other, message: error.description, underlying: error)
        }
        self.limits = limits
        self.timing = timing
        lastReceived = now
    }

    /// Receive window per stream: 1 MiB lets a download run without waiting for WINDOW_UPDATE
    /// round trips, while a stream's unread bytes stay far below the default body limit.
    static let streamWindowBytes = 1 << 20
    /// Receive window for the whole connection, shared by its streams.
    static let connectionWindowBytes = 16 << 20
    /// RFC 9113 §6.5.2 recommends servers allow at least 100; assumed until SETTINGS arrive on
    /// a host's first connection (later ones assume what their siblings learned: see
    /// ``HTTP2Pool/assumedMaxConcurrentStreams(learned:)``).
    static let assumedMaxConcurrentStreams = 100
    /// The most body storage reserved ahead of the bytes, whatever `content-length` declares:
    /// a declared length costs the server nothing, so 100 streams declaring the body limit must
    /// not claim 100 times that much memory before any byte arrives (as in the HTTP/1.1 parser).
    static let maxBodyReservation = 1 << 20

    /// The most events one exchange's log holds. An exchange's own story is a handful of events
    /// (its request, the server's SETTINGS and GOAWAY, a PING or two, its response or failure);
    /// anything more can only be connection-wide events the server provokes (a SETTINGS whose
    /// value keeps changing, a PING per quiet `pingInterval` over a long deadline). Past this many
    /// they are dropped, so a server's frames cost no memory per frame (issue 21); the last place
    /// is kept for the exchange's ending, the one event every observer needs.
    static let maxEventsPerStream = 64

    /// How much body storage a stream reserves for a declared `content-length`.
    static func initialBodyCapacity(declaredLength: Int) -> Int {
        min(max(declaredLength, 0), maxBodyReservation)
    }

    // MARK: - State

    /// How many exchanges are in flight (sent, or queued in nghttp2 behind the server's limit).
    var openStreamCount: Int { streams.count }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (the assumed value until its SETTINGS arrive).
    var maxConcurrentStreams: Int { session.maxConcurrentStreams }

    /// Whether a new exchange may start: no GOAWAY either way, no connection failure.
    var acceptsStreams: Bool { connectionFailure == nil && goAway == nil && !isShuttingDown && session.acceptsRequests }

    /// Whether the connection has nothing left to do: no stream open, nothing to send or receive.
    var isFinished: Bool {
        connectionFailure != nil ? !session.wantsWrite : streams.isEmpty && !session.wantsRead && !session.wantsWrite
    }

    /// Whether frames are waiting to be produced.
    var wantsWrite: Bool { session.wantsWrite }

    /// The heads of streamed exchanges that arrived since the last call, in order; take them
    /// before ``takeFinished()``, which may hold the same exchanges' ends.
    func takeHeads() -> [Head] {
        defer { heads.removeAll(keepingCapacity: true) }
        return heads
    }

    /// The streams that finished since the last call.
    func takeFinished() -> [Finished] {
        defer { finished.removeAll(keepingCapacity: true) }
        return finished
    }

    /// The earliest moment ``tick(now:)`` has something to do, or nil when nothing is timed.
    func nextDeadline() -> ContinuousClock.Instant? {
        guard !streams.isEmpty, connectionFailure == nil else { return nil }
        var earliest = pingSentAt.map { $0 + timing.pingInterval } ?? lastReceived + timing.pingInterval
        for stream in streams.values {
            earliest = min(earliest, stream.deadline)
            if stream.sentAt != nil, !isIdleByChoice(stream) { earliest = min(earliest, stream.lastProgress + timing.idleTimeout) }
        }
        return earliest
    }

    // MARK: - Input

    /// Starts `exchange` as a new stream; one that cannot start finishes at once.
    func open(_ exchange: Exchange, now: ContinuousClock.Instant) {
        let request = exchange.request
        if exchange.collectsEvents {
            eventLogs[exchange.id] = settingsNotYetRecorded.map { [$0] } ?? []
            settingsNotYetRecorded = nil
        }
        guard acceptsStreams else {
            if var failure = connectionFailure?.error, failure.kind == .tls {
                // A TLS failure (a client certificate the server refused after a TLS 1.3
                // handshake) answers every request of the connection, like the streams it failed:
                // a final refusal, not a loss worth sending the request again for.
                (failure.method, failure.url) = (request.method, request.url)
                return finish(exchange.id, streamID: 0, .failure(HTTP2StreamFailure(error: failure, connectionFailed: true)))
            }
            let reason = connectionFailure?.error.message ?? "the connection is closing"
            return finish(
                exchange.id, streamID: 0,
                .failure(
                    HTTP2StreamFailure(
                        error: error(.connectionLost, request.method, request.url, "not sent: \(reason)"), unprocessed: true)))
        }
        let streamID: Int32
        let body: NGHTTP2Session.Body
        switch request.body {
        case let .bytes(bytes): body = .bytes(bytes)
        case let .streamed(pipe, _): body = .pulled(pullBody(from: pipe))
        }
        do {
            streamID = try session.submitRequest(fields: request.fields, body: body)
        } catch {
            return finish(
                exchange.id, streamID: 0,
                .failure(
                    HTTP2StreamFailure(
                        error: self.error(.connectionLost, request.method, request.url, "not sent: \(error.description)"),
                        unprocessed: true)))
        }
        var stream = Stream(
            id: exchange.id, method: request.method, url: request.url,
            deadline: exchange.deadline, lastProgress: now)
        if case let .streamed(pipe, _) = request.body { stream.requestBody = pipe }
        streams[streamID] = stream
        streamIDs[exchange.id] = streamID
        if let channel = exchange.responseBody { flows[exchange.id] = Flow(streamID: streamID, channel: channel) }
        let bodyBytes = request.body.length.map { Int(clamping: $0) } ?? 0
        record(.requestSent(streamID: streamID, method: request.method, bodyBytes: bodyBytes), on: streamID)
    }

    /// nghttp2's source for a streamed request body: what the pipe holds, or a wait. A body that
    /// could not be read is noted, and its stream abandoned once nghttp2 returns.
    private func pullBody(from pipe: HTTP2RequestBodyPipe) -> NGHTTP2Session.BodyPull {
        // Weak: the session (which holds this closure) belongs to the multiplexer.
        { [weak self] buffer in
            switch pipe.read(into: buffer) {
            case let .bytes(count, end): return .bytes(count: count, end: end)
            case .wait: return .wait
            case .failed:
                self?.failedRequestBodies.append(pipe)
                return .wait
            }
        }
    }

    /// The caller handed more of exchange `id`'s request body (or its end, or a failure): its
    /// stream, deferred while the pipe was empty, is asked for DATA again.
    func requestBodyAvailable(_ id: UInt64, now: ContinuousClock.Instant = .now) {
        guard let streamID = streamIDs[id] else { return }
        session.resumeBody(streamID: streamID)
        // The stream waited for the caller, not the server: its idle wait starts again now (not
        // at the connection's last frame, which may be older than the idle timeout).
        streams[streamID]?.lastProgress = now
    }

    /// Exchange `id`'s reader drained its channel below the low watermark, or released the body.
    /// Drained: what was held back is acknowledged, and later bytes are again as they arrive.
    /// Released: the stream is reset with CANCEL if it is still open, and every byte it received
    /// is acknowledged, so the connection's window is whole again for the other streams.
    func readerDemand(_ id: UInt64, now: ContinuousClock.Instant = .now) {
        guard var flow = flows[id] else { return }
        let open = streamIDs[id].flatMap { streams[$0] } != nil
        if flow.channel.isReleased {
            flows[id] = nil
            session.consumeStream(streamID: flow.streamID, bytes: flow.unacknowledged)
            guard open, let stream = streams[flow.streamID] else { return }
            session.reset(streamID: flow.streamID, code: .cancel)
            fail(
                flow.streamID,
                HTTP2StreamFailure(
                    error: error(.other, stream, "the reader released the body before its end"),
                    receivedResponseBytes: true))
            return
        }
        guard flow.paused else { return }
        session.consumeStream(streamID: flow.streamID, bytes: flow.unacknowledged)
        flow.paused = false
        flow.unacknowledged = 0
        // The server could not send while the reader was behind: the idle wait starts again now.
        if open { streams[flow.streamID]?.lastProgress = now }
        flows[id] = open ? flow : nil
    }

    /// Sends GOAWAY: no new stream starts; the connection is finished once the open ones are.
    func shutDown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        session.goAway(code: .noError)
    }

    /// Abandons exchange `id` (its caller went away): the stream is reset with CANCEL, the other
    /// streams carry on, and nothing is reported for it.
    func cancel(_ id: UInt64) {
        if let flow = flows.removeValue(forKey: id) {
            flow.channel.finish(throwing: CancellationError())
            session.consumeStream(streamID: flow.streamID, bytes: flow.unacknowledged)
        }
        guard let streamID = streamIDs.removeValue(forKey: id) else { return }
        streams.removeValue(forKey: streamID)?.requestBody?.close()
        eventLogs[id] = nil
        session.reset(streamID: streamID, code: .cancel)
    }

    /// Processes bytes from the server.
    func receive(_ bytes: UnsafeRawBufferPointer, now: ContinuousClock.Instant) {
        guard connectionFailure == nil else { return }
        // Anything arriving proves the connection alive, whether or not it answers our PING.
        lastReceived = now
        pingSentAt = nil
        do {
            try session.receive(bytes)
        } catch {
            failConnection(HTTP2Error.connectionError(.internalError, reason: error.description), kind: .invalidResponse)
            session.terminate(code: .internalError)
            return
        }
        handle(session.takeEvents(), now: now)
        checkConnectionEnded()
    }

    /// Hands queued frames to `sink`, up to about `limit` bytes.
    ///
    /// - Returns: How many bytes were handed out.
    @discardableResult
    func produce(upTo limit: Int, now: ContinuousClock.Instant, into sink: (UnsafeRawBufferPointer) -> Void) -> Int {
        var count = 0
        repeat {
            do {
                count += try session.produce(upTo: limit - count, into: sink)
            } catch {
                failConnection(HTTP2Error.connectionError(.internalError, reason: error.description), kind: .other)
                return count
            }
            handle(session.takeEvents(), now: now)
            // A body that failed while nghttp2 asked for it resets its stream: that RST_STREAM
            // goes out in this same call (a caller that stops at a 0 return would leave it
            // queued, and the stream half-sent, until something else woke the connection).
        } while abandonFailedRequestBodies() && count < limit
        checkConnectionEnded()
        return count
    }

    /// Abandons the streams whose request body could not be read (a length mismatch, a failing
    /// file or sequence): the server must never see a body cut short end as if complete.
    ///
    /// - Returns: Whether a stream was abandoned (its RST_STREAM is queued).
    private func abandonFailedRequestBodies() -> Bool {
        guard !failedRequestBodies.isEmpty else { return false }
        let failed = failedRequestBodies
        failedRequestBodies.removeAll()
        var abandoned = false
        for pipe in failed {
            guard let (streamID, stream) = streams.first(where: { $0.value.requestBody === pipe }) else { continue }
            let failure = pipe.failure ?? error(.invalidRequest, stream, "the request body could not be read")
            abandon(streamID, failure)
            abandoned = true
        }
        return abandoned
    }

    /// Applies deadlines, idle timeouts and the PING rule at `now`.
    func tick(now: ContinuousClock.Instant) {
        guard connectionFailure == nil, !streams.isEmpty else { return }
        if let sent = pingSentAt {
            guard now - sent < timing.pingInterval else {
                failConnection(.pingUnanswered(silence: now - lastReceived), kind: .connectionLost)
                session.terminate(code: .noError)
                return
            }
        } else if now - lastReceived >= timing.pingInterval {
            pingSentAt = now
            session.ping()
            recordForAll(.pingSent)
        }
        for (streamID, stream) in streams {
            if now >= stream.deadline {
                abandon(streamID, error(.timedOut, stream, "the whole-request deadline passed before the response was complete"))
            } else if stream.sentAt != nil, !isIdleByChoice(stream), now - stream.lastProgress >= timing.idleTimeout {
                abandon(
                    streamID,
                    error(
                        .timedOut, stream,
                        "no progress for \(timing.idleTimeout) (idle timeout) on HTTP/2 stream \(streamID)"))
            }
        }
    }

    /// Whether `stream` is quiet because of the client's side, not the server: its reader is
    /// behind (the server may not send), or its streamed request body waits for the caller.
    private func isIdleByChoice(_ stream: Stream) -> Bool {
        flows[stream.id]?.paused == true || stream.requestBody?.isWaitingForBody == true
    }

    /// Fails every open stream because the connection under it closed (`failure` nil: the
    /// server closed it) or failed. Streams a GOAWAY left unprocessed are marked so.
    func transportEnded(_ failure: TransportError?) {
        guard connectionFailure == nil else { return }
        let reason: HTTP2Error = goAway.map { .goAway($0.code, debug: $0.debug) } ?? .connectionClosed
        let kind = failure?.kind ?? .connectionLost
        let message = failure?.message ?? reason.description
        // A typed cause from below (a server's refusal of the client certificate) stays visible.
        let underlying: any Error = failure?.underlying ?? reason
        connectionFailure = HTTP2StreamFailure(
            error: TransportError(kind, message: message, underlying: underlying),
            connectionFailed: true)
        for streamID in streams.keys.sorted() {
            guard let stream = streams[streamID] else { continue }
            let unprocessed = goAway.map { streamID > $0.lastStreamID } ?? false
            fail(
                streamID,
                HTTP2StreamFailure(
                    error: TransportError(kind, method: stream.method, url: stream.url, message: message, underlying: underlying),
                    unprocessed: unprocessed, receivedResponseBytes: stream.statusCode != nil, connectionFailed: true))
        }
    }

    // MARK: - Events

    private func handle(_ events: [NGHTTP2Event], now: ContinuousClock.Instant) {
        for event in events { handle(event, now: now) }
    }

    private func handle(_ event: NGHTTP2Event, now: ContinuousClock.Instant) {
        switch event {
        case let .headers(streamID, fields, endStream):
            headers(fields, on: streamID, endStream: endStream, now: now)
        case let .data(streamID, bytes):
            received(bytes, on: streamID, now: now)
        case let .endStream(streamID):
            complete(streamID)
        case let .reset(streamID, code):
            guard let stream = streams[streamID] else { return }
            fail(
                streamID,
                HTTP2StreamFailure(
                    error: error(.connectionLost, stream, HTTP2Error.streamReset(code)),
                    unprocessed: code == .refusedStream,
                    receivedResponseBytes: stream.statusCode != nil))
        case let .headerLimitExceeded(streamID, limit):
            guard let stream = streams[streamID] else { return }
            let reason: HTTP2Error =
                switch limit {
                case let .listBytes(bytes): .headerListTooLarge(limit: bytes)
                case let .fieldCount(count): .tooManyHeaders(limit: count)
                }
            fail(streamID, HTTP2StreamFailure(error: error(.invalidResponse, stream, reason), receivedResponseBytes: true))
        case let .statusRefused(streamID, values):
            guard let stream = streams[streamID] else { return }
            // nghttp2 refused it and reset the stream; the reason comes from the shared rule.
            let reason: HTTP2Error =
                switch Self.status(values) {
                case let .failure(violation): violation
                case .success: .malformedResponse(reason: "nghttp2 refused its :status \(HTTPStatusCodeRule.shown(values.last ?? []))")
                }
            fail(streamID, HTTP2StreamFailure(error: error(.invalidResponse, stream, reason), receivedResponseBytes: true))
        case let .malformed(streamID, reason):
            guard let stream = streams[streamID] else { return }
            fail(
                streamID,
                HTTP2StreamFailure(
                    error: error(.invalidResponse, stream, HTTP2Error.malformedResponse(reason: reason)),
                    receivedResponseBytes: true))
        case let .closed(streamID, code):
            guard let stream = streams[streamID] else { return }
            // Closed with no END_STREAM and no RST_STREAM from the server (either would have
            // ended it already): nghttp2 closed it, for a GOAWAY or because the frames broke
            // HTTP messaging rules (it then resets the stream itself, RFC 9113 §8.1.1).
            if let goAway {
                fail(
                    streamID,
                    HTTP2StreamFailure(
                        error: error(.connectionLost, stream, HTTP2Error.goAway(goAway.code, debug: goAway.debug)),
                        unprocessed: streamID > goAway.lastStreamID,
                        receivedResponseBytes: stream.statusCode != nil))
            } else {
                fail(
                    streamID,
                    HTTP2StreamFailure(
                        error: error(
                            .invalidResponse, stream,
                            HTTP2Error.malformedResponse(
                                reason: "the client reset the stream with \(code)")), receivedResponseBytes: stream.statusCode != nil))
            }
        case let .notSent(streamID, refused, reason):
            guard let stream = streams[streamID] else { return }
            fail(
                streamID,
                HTTP2StreamFailure(
                    error: error(
                        refused ? .connectionLost : .invalidRequest, stream,
                        "the request could not be sent: \(reason)"),
                    unprocessed: refused))
        case let .sent(streamID):
            guard var stream = streams[streamID] else { return }
            stream.sentAt = stream.sentAt ?? now
            stream.lastProgress = now
            streams[streamID] = stream
        case let .goAway(lastStreamID, code, debug):
            // Only the first GOAWAY is news to an observer: nghttp2 refuses a higher last stream
            // identifier (§6.8), and a lower one shows in the `failed` events of the streams it
            // cuts off below. nghttp2 counts no GOAWAY flood, so a server repeating 17-byte
            // GOAWAYs must not add an event per frame to every exchange (issue 21).
            if goAway == nil { recordForAll(.goAwayReceived(lastStreamID: lastStreamID, code: code)) }
            goAway = (min(lastStreamID, goAway?.lastStreamID ?? lastStreamID), code, debug)
            // §6.8: streams above the last identifier were not processed and never will be.
            for streamID in streams.keys.sorted() where streamID > lastStreamID {
                guard let stream = streams[streamID] else { continue }
                fail(
                    streamID,
                    HTTP2StreamFailure(
                        error: error(.connectionLost, stream, HTTP2Error.goAway(code, debug: debug)),
                        unprocessed: true))
            }
        case let .settings(maxConcurrentStreams):
            // A SETTINGS that leaves the stream limit as it was tells an observer nothing; one
            // that keeps changing it is bounded by maxEventsPerStream (nghttp2 bounds only the
            // ACKs it owes, not how many SETTINGS arrive).
            guard maxConcurrentStreams != recordedMaxConcurrentStreams else { return }
            recordedMaxConcurrentStreams = maxConcurrentStreams
            let event = HTTP2Event.settingsReceived(maxConcurrentStreams: maxConcurrentStreams)
            if eventLogs.isEmpty { settingsNotYetRecorded = event } else { recordForAll(event) }
        case .pingAcknowledged:
            pingSentAt = nil
        case let .connectionError(code, reason):
            failConnection(.connectionError(code, reason: reason.isEmpty ? "a protocol error" : reason), kind: .invalidResponse)
        }
    }

    /// Body bytes for `streamID`: to the channel of a streamed exchange, else to the buffer.
    private func received(_ bytes: [UInt8], on streamID: Int32, now: ContinuousClock.Instant) {
        // Only the identifier is read out: a copy of the stream would share its body, and the
        // append below would then copy the whole body each time (quadratic in its size).
        guard let id = streams[streamID]?.id else {
            // A stream this client gave up on (cancelled, released, abandoned): the bytes were in
            // flight; acknowledge them, or the connection window shrinks for every other stream.
            return session.consume(streamID: streamID, bytes: bytes.count)
        }
        streams[streamID]?.lastProgress = now
        streams[streamID]?.bodyBytes += bytes.count
        guard var flow = flows[id] else {
            // Buffered: held in memory anyway, under the body limit, so acknowledged at once.
            session.consume(streamID: streamID, bytes: bytes.count)
            guard (streams[streamID]?.body.count ?? 0) + bytes.count <= limits.maxResponseBodyBytes else {
                return abandon(streamID, .invalidResponse, HTTP2Error.bodyTooLarge(limit: limits.maxResponseBodyBytes))
            }
            // In place, for the same reason.
            streams[streamID]?.body.append(contentsOf: bytes)
            return
        }
        let goOn = flow.channel.yield(bytes[...])
        if flow.paused || !goOn {
            flow.paused = true
            // Held back from the stream's window only: the stream window bounds what a paused
            // reader holds, and the connection's is credited at once, so any number of paused
            // streams cannot starve the others (nghttp2 reopens the connection window only once
            // half of it was consumed, which paused streams could otherwise hold for ever).
            session.consumeConnection(bytes: bytes.count)
            flow.unacknowledged += bytes.count
        } else {
            session.consume(streamID: streamID, bytes: bytes.count)
        }
        flows[id] = flow
        // Released while we were not looking (its onDemand is on its way): act now.
        if flow.channel.isReleased { readerDemand(id) }
    }

    private func headers(_ fields: [HTTP2Field], on streamID: Int32, endStream: Bool, now: ContinuousClock.Instant) {
        guard var stream = streams[streamID] else { return }
        stream.lastProgress = now
        let regular = HTTPHeaders(fields.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) })
        if stream.statusCode == nil {
            let status: Int
            switch Self.status(fields.filter { $0.name == ":status" }.map { Array($0.value.utf8) }) {
            case let .success(code): status = code
            case let .failure(reason): return abandon(streamID, .invalidResponse, reason)
            }
            if (100..<200).contains(status) {
                stream.interimStatusCodes.append(status)
                streams[streamID] = stream
                guard stream.interimStatusCodes.count <= limits.maxInterimResponses else {
                    return abandon(streamID, .invalidResponse, HTTP2Error.tooManyInterimResponses(limit: limits.maxInterimResponses))
                }
                return
            }
            stream.statusCode = status
            stream.headers = regular
            if var flow = flows[stream.id] {
                // Streamed: the reader decides how much it takes, so no body limit applies.
                streams[streamID] = stream
                flow.headDelivered = true
                flows[stream.id] = flow
                // The events so far go with the head; the log starts again for the stream's end.
                let events = eventLogs[stream.id]
                if events != nil { eventLogs[stream.id] = [] }
                heads.append(
                    Head(
                        id: stream.id, streamID: streamID,
                        head: HTTPResponseHead(statusCode: status, headers: regular, url: stream.url),
                        events: events ?? []))
                if endStream { complete(streamID) }
                return
            }
            if let length = regular["content-length"].flatMap(Int.init), length > limits.maxResponseBodyBytes {
                return abandon(streamID, .invalidResponse, HTTP2Error.bodyTooLarge(limit: limits.maxResponseBodyBytes))
            }
            if let length = regular["content-length"].flatMap(Int.init) {
                stream.body.reserveCapacity(Self.initialBodyCapacity(declaredLength: length))
            }
        } else {
            stream.trailers = regular
        }
        streams[streamID] = stream
        if endStream { complete(streamID) }
    }

    /// The status code of a response header block with `values` as its `:status` fields, by
    /// ``HTTPStatusCodeRule`` (the HTTP/1.1 parser's rule), or why the block is malformed. nghttp2
    /// refuses most of these itself (``NGHTTP2Event/statusRefused(streamID:values:)``), but not
    /// `099` or `999`: three digits are all it checks.
    static func status(_ values: [[UInt8]]) -> Result<Int, HTTP2Error> {
        guard let value = values.first else { return .failure(.malformedResponse(reason: "no :status")) }
        // RFC 9113 §8.3: each pseudo-header field appears at most once.
        guard values.count == 1 else {
            return .failure(.malformedResponse(reason: "a second :status \(HTTPStatusCodeRule.shown(values[1])) in one header block"))
        }
        let code: Int
        do {
            code = try HTTPStatusCodeRule.statusCode(value)
        } catch {
            return .failure(.malformedResponse(reason: error.description))
        }
        // RFC 9113 §8.6: HTTP/2 has no 101 (Switching Protocols); a response carrying it is malformed.
        guard code != 101 else { return .failure(.malformedResponse(reason: "101 (Switching Protocols) does not exist in HTTP/2")) }
        return .success(code)
    }

    // MARK: - Endings

    private func complete(_ streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        guard let statusCode = stream.statusCode else {
            return fail(
                streamID,
                HTTP2StreamFailure(
                    error: error(
                        .invalidResponse, stream,
                        HTTP2Error.malformedResponse(reason: "the stream ended without a final response"))))
        }
        let response = HTTP2Response(
            statusCode: statusCode, headers: stream.headers, body: stream.body,
            trailers: stream.trailers, interimStatusCodes: stream.interimStatusCodes)
        record(.responseReceived(streamID: streamID, statusCode: statusCode, bodyBytes: stream.bodyBytes), on: streamID)
        // The server answered before the request body was all sent (§8.1): stop sending it.
        if session.isOpenForSending(streamID: streamID) { session.reset(streamID: streamID, code: .cancel) }
        flows[stream.id]?.channel.finish()
        finish(stream.id, streamID: streamID, .success(response))
    }

    /// Fails the stream and resets it, because this client gives up on it.
    private func abandon(_ streamID: Int32, _ kind: TransportError.Kind, _ reason: HTTP2Error) {
        guard let stream = streams[streamID] else { return }
        abandon(streamID, error(kind, stream, reason))
    }

    private func abandon(_ streamID: Int32, _ error: TransportError) {
        guard let stream = streams[streamID] else { return }
        session.reset(streamID: streamID, code: .cancel)
        fail(streamID, HTTP2StreamFailure(error: error, receivedResponseBytes: stream.statusCode != nil))
    }

    private func fail(_ streamID: Int32, _ failure: HTTP2StreamFailure) {
        guard let stream = streams[streamID] else { return }
        var failure = failure
        // A response head proves the server processed the request, whatever a REFUSED_STREAM or
        // a GOAWAY's last stream identifier claims (§8.7): sending it again could repeat a POST.
        if stream.statusCode != nil {
            failure.unprocessed = false
            failure.receivedResponseBytes = true
        }
        record(.failed(streamID: streamID, kind: failure.error.kind, message: failure.error.message), on: streamID)
        // A reader already reading the body gets the failure after what arrived.
        flows[stream.id]?.channel.finish(throwing: failure.error)
        finish(stream.id, streamID: streamID, .failure(failure))
    }

    private func finish(_ id: UInt64, streamID: Int32, _ result: Result<HTTP2Response, HTTP2StreamFailure>) {
        if streamID != 0 { streams.removeValue(forKey: streamID)?.requestBody?.close() }
        // A streamed exchange keeps its flow while the reader still owes acknowledgements.
        if let flow = flows[id], !flow.headDelivered || flow.unacknowledged == 0 || flow.channel.isReleased {
            flows[id] = nil
            session.consumeStream(streamID: flow.streamID, bytes: flow.unacknowledged)
        }
        streamIDs[id] = nil
        finished.append(Finished(id: id, streamID: streamID, result: result, events: eventLogs.removeValue(forKey: id) ?? []))
    }

    /// Records `event` for the exchange on `streamID`, if it collects events. Its own events
    /// (request sent, then one ending) always fit: ``recordForAll(_:)`` leaves them room.
    private func record(_ event: @autoclosure () -> HTTP2Event, on streamID: Int32) {
        guard let id = streams[streamID]?.id, let count = eventLogs[id]?.count,
            count < Self.maxEventsPerStream
        else { return }
        eventLogs[id]?.append(event())
    }

    /// Records a connection-wide `event` for every open exchange that collects events, except
    /// those whose log is full (the last place stays free for the exchange's ending).
    private func recordForAll(_ event: HTTP2Event) {
        // Over a copy of the keys, so each log is appended to in place.
        for id in Array(eventLogs.keys) where eventLogs[id, default: []].count < Self.maxEventsPerStream - 1 {
            eventLogs[id]?.append(event)
        }
    }

    /// Ends the connection over `reason`: every open stream fails with it.
    private func failConnection(_ reason: HTTP2Error, kind: TransportError.Kind) {
        guard connectionFailure == nil else { return }
        connectionFailure = HTTP2StreamFailure(
            error: TransportError(kind, message: reason.description, underlying: reason),
            connectionFailed: true)
        for streamID in streams.keys.sorted() {
            guard let stream = streams[streamID] else { continue }
            fail(
                streamID,
                HTTP2StreamFailure(
                    error: error(kind, stream, reason), receivedResponseBytes: stream.statusCode != nil,
                    connectionFailed: reason.isSilence))
        }
    }

    /// nghttp2 will neither read nor write any more (a GOAWAY either way finished its streams,
    /// or it ended the connection): streams still open will never complete.
    private func checkConnectionEnded() {
        guard connectionFailure == nil, !streams.isEmpty, !session.wantsRead, !session.wantsWrite else { return }
        transportEnded(nil)
    }

    // MARK: - Errors

    private func error(_ kind: TransportError.Kind, _ stream: Stream, _ reason: HTTP2Error) -> TransportError {
        TransportError(kind, method: stream.method, url: stream.url, message: reason.description, underlying: reason)
    }

    private func error(_ kind: TransportError.Kind, _ stream: Stream, _ message: String) -> TransportError {
        TransportError(kind, method: stream.method, url: stream.url, message: message)
    }

    private func error(_ kind: TransportError.Kind, _ method: HTTPMethod, _ url: URL?, _ message: String) -> TransportError {
        TransportError(kind, method: method, url: url, message: message)
    }
}

extension HTTP2Error {
    /// A dead connection, not a verdict on any stream: requests on it have an unknown fate.
    fileprivate var isSilence: Bool {
        if case .pingUnanswered = self { true } else { false }
    }
}
