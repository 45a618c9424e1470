import CNGHTTP2

/// One client-side nghttp2 session: HTTP/2 framing, HPACK and flow control for one connection,
/// driven entirely through memory (``receive(_:)`` takes the server's bytes, ``produce(upTo:into:)``
/// hands out ours), so nghttp2 never touches a socket and never blocks.
///
/// What it reports comes back as ``NGHTTP2Event`` values from ``takeEvents()``; nghttp2's
/// pointers, frames and callbacks stay inside this folder. It enforces, as the fields arrive
/// and before they are stored, the header-list limits it was created with (HPACK lets a server
/// expand a few bytes into megabytes of fields, so counting after the fact is too late).
///
/// Not thread-safe: one connection's thread owns it.
final class NGHTTP2Session {
    /// How the session is set up.
    struct Settings: Sendable {
        /// SETTINGS_INITIAL_WINDOW_SIZE: how many body bytes the server may send on one stream
        /// before we acknowledge some. Acknowledging is explicit (``consume(streamID:bytes:)``):
        /// nghttp2's automatic WINDOW_UPDATE is off, so the windows follow what the reader took.
        var streamWindowBytes: Int
        /// The connection-level receive window, shared by every stream.
        var connectionWindowBytes: Int
        /// The largest header list (RFC 9113 §6.5.2 size) accepted; also sent as
        /// SETTINGS_MAX_HEADER_LIST_SIZE.
        var maxHeaderListBytes: Int
        /// The most fields (pseudo-header fields not counted) one header block may have.
        var maxHeaderCount: Int
        /// The concurrent-stream limit assumed until the server's SETTINGS arrive.
        var assumedMaxConcurrentStreams: Int
    }

    private let session: OpaquePointer
    private let inbound: NGHTTP2CallbackState

    /// Creates the session and queues the client preface: the connection magic and SETTINGS
    /// (push disabled, our windows and header-list size), sent on the first ``produce(upTo:into:)``.
    ///
    /// - Throws: ``NGHTTP2Failure`` when nghttp2 cannot allocate the session.
    init(settings: Settings) throws(NGHTTP2Failure) {
        let inbound = NGHTTP2CallbackState(
            maxHeaderListBytes: settings.maxHeaderListBytes,
            maxHeaderCount: settings.maxHeaderCount)
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw NGHTTP2Failure(code: Int32(NGHTTP2_ERR_NOMEM.rawValue), doing: "allocating callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        guard nghttp2_option_new(&option) == 0, let option else {
            throw NGHTTP2Failure(code: Int32(NGHTTP2_ERR_NOMEM.rawValue), doing: "allocating options")
        }
        defer { nghttp2_option_del(option) }
        NGHTTP2Callbacks.install(on: callbacks)
        nghttp2_option_set_peer_max_concurrent_streams(option, UInt32(clamping: settings.assumedMaxConcurrentStreams))
        // Windows open only as far as the reader has read (consume(streamID:bytes:)), not as
        // far as nghttp2 has parsed: otherwise a slow reader lets the server fill memory.
        nghttp2_option_set_no_auto_window_update(option, 1)
        var created: OpaquePointer?
        let status = nghttp2_session_client_new2(&created, callbacks, Unmanaged.passUnretained(inbound).toOpaque(), option)
        guard status == 0, let created else { throw NGHTTP2Failure(code: status, doing: "creating the session") }
        session = created
        self.inbound = inbound
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: UInt32(clamping: min(settings.streamWindowBytes, Int(Int32.max)))),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: settings.maxHeaderListBytes)),
        ]
        let queued = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        guard queued == 0 else { throw NGHTTP2Failure(code: queued, doing: "queueing SETTINGS") }
        let window = nghttp2_session_set_local_window_size(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
            Int32(clamping: settings.connectionWindowBytes))
        guard window == 0 else { throw NGHTTP2Failure(code: window, doing: "sizing the connection window") }
    }

    deinit {
        nghttp2_session_del(session)
    }

    // MARK: - Requests

    /// Queues a request: a HEADERS frame with `fields` (pseudo-header fields first), then `body`
    /// in DATA frames as the server's flow-control windows allow, or END_STREAM on the HEADERS
    /// frame when `body` is empty. nghttp2 holds the HEADERS back while the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS streams are open.
    ///
    /// - Returns: The stream identifier.
    /// - Throws: ``NGHTTP2Failure`` when nghttp2 refuses (no stream identifiers left, or a
    ///   GOAWAY already arrived).
    func submitRequest(fields: [HTTP2Field], body: Body) throws(NGHTTP2Failure) -> Int32 {
        // One buffer for every name and value; nghttp2 copies the fields during the call.
        var storage: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        for field in fields {
            let nameStart = storage.count
            storage.append(contentsOf: field.name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: field.value.utf8)
            spans.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        let streamID = storage.withUnsafeMutableBufferPointer { bytes -> Int32 in
            let base = bytes.baseAddress ?? UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
            var headers = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            if case let .bytes(bytes) = body, bytes.isEmpty {
                return nghttp2_submit_request(session, nil, &headers, headers.count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: NGHTTP2Callbacks.readBody)
            return nghttp2_submit_request(session, nil, &headers, headers.count, &provider, nil)
        }
        guard streamID > 0 else { throw NGHTTP2Failure(code: streamID, doing: "submitting a request") }
        switch body {
        case let .bytes(bytes): if !bytes.isEmpty { inbound.bodies[streamID] = bytes }
        case let .pulled(pull): inbound.pulledBodies[streamID] = pull
        }
        return streamID
    }

    /// A request body: bytes in memory, or pulled as DATA frames are built.
    enum Body {
        /// Sent from memory; empty means no body (END_STREAM on the HEADERS frame).
        case bytes(ArraySlice<UInt8>)
        /// Asked for bytes each time a DATA frame can go out.
        case pulled(BodyPull)
    }

    /// What a pulled body gives for one DATA frame.
    enum Pulled {
        /// `count` bytes were written to the buffer; `end` when the body is complete (END_STREAM).
        case bytes(count: Int, end: Bool)
        /// Nothing yet: the stream waits until ``resumeBody(streamID:)``.
        case wait
    }

    /// Fills a buffer (at most its size, the most flow control allows now) with body bytes.
    typealias BodyPull = (UnsafeMutableRawBufferPointer) -> Pulled

    /// Asks a pulled body that answered ``Pulled/wait`` again, at the next write.
    func resumeBody(streamID: Int32) {
        _ = nghttp2_session_resume_data(session, streamID)
    }

    /// Acknowledges `bytes` of response body on `streamID` as read: the stream's and the
    /// connection's receive windows reopen by that much (nghttp2 sends WINDOW_UPDATE once half a
    /// window is owed). For a stream already closed only the connection's window reopens.
    func consume(streamID: Int32, bytes: Int) {
        guard bytes > 0, streamID > 0 else { return }
        _ = nghttp2_session_consume(session, streamID, bytes)
    }

    /// Acknowledges `bytes` of DATA at the connection level only: the connection window reopens
    /// while the stream's stays as it is (see ``consumeStream(streamID:bytes:)``).
    func consumeConnection(bytes: Int) {
        guard bytes > 0 else { return }
        _ = nghttp2_session_consume_connection(session, bytes)
    }

    /// Acknowledges `bytes` of DATA for `streamID` only, bytes whose connection-level share
    /// ``consumeConnection(bytes:)`` already acknowledged. A closed stream ignores it.
    func consumeStream(streamID: Int32, bytes: Int) {
        guard bytes > 0, streamID > 0 else { return }
        _ = nghttp2_session_consume_stream(session, streamID, bytes)
    }

    /// Whether `streamID` is open and this side has not ended it (no END_STREAM sent yet).
    func isOpenForSending(streamID: Int32) -> Bool {
        nghttp2_session_get_stream_local_close(session, streamID) == 0
    }

    /// Queues RST_STREAM for `streamID` (or cancels its HEADERS if they were not sent yet).
    func reset(streamID: Int32, code: HTTP2ErrorCode) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code.rawValue)
    }

    /// Queues a PING; its acknowledgement is reported as ``NGHTTP2Event/pingAcknowledged``.
    func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Queues GOAWAY with `code`: no stream starts after it, streams already open finish.
    func goAway(code: HTTP2ErrorCode) {
        // A client's last-stream-id names server-initiated streams, of which there are none (push is off).
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, code.rawValue, nil, 0)
    }

    /// Queues GOAWAY with `code` and ends the connection once it is sent, open streams or not.
    func terminate(code: HTTP2ErrorCode) {
        _ = nghttp2_session_terminate_session(session, code.rawValue)
    }

    // MARK: - Bytes in and out

    /// Processes bytes the server sent; what they meant is queued for ``takeEvents()``.
    ///
    /// - Throws: ``NGHTTP2Failure`` for a failure nghttp2 cannot recover from (such as a flood
    ///   of frames that need acknowledging); the session is then unusable.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(NGHTTP2Failure) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard consumed >= 0 else { throw NGHTTP2Failure(code: Int32(clamping: consumed), doing: "reading frames") }
    }

    /// Serializes queued frames (request bodies as flow control allows) and hands them to
    /// `sink`, until about `limit` bytes were handed out or nothing is left.
    ///
    /// - Returns: How many bytes were handed out.
    /// - Throws: ``NGHTTP2Failure`` when nghttp2 fails; the session is then unusable.
    @discardableResult
    func produce(upTo limit: Int, into sink: (UnsafeRawBufferPointer) -> Void) throws(NGHTTP2Failure) -> Int {
        var total = 0
        while total < limit {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            guard count >= 0 else { throw NGHTTP2Failure(code: Int32(clamping: count), doing: "writing frames") }
            guard count > 0, let pointer else { break }
            sink(UnsafeRawBufferPointer(start: pointer, count: count))
            total += count
        }
        return total
    }

    /// Everything learned since the last call, in order.
    func takeEvents() -> [NGHTTP2Event] {
        defer { inbound.events.removeAll(keepingCapacity: true) }
        return inbound.events
    }

    // MARK: - State

    /// Whether nghttp2 expects more bytes from the server (false once the connection is ending).
    var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }

    /// Whether nghttp2 has frames to send.
    var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// Whether a new stream may start (no GOAWAY sent or received, stream identifiers left).
    var acceptsRequests: Bool { nghttp2_session_check_request_allowed(session) != 0 }

    /// The server's current SETTINGS_MAX_CONCURRENT_STREAMS.
    var maxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }
}

/// A failure nghttp2 reported as a library error code, with nghttp2's own text.
struct NGHTTP2Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// nghttp2's error code (`nghttp2_error`, negative).
    var code: Int32
    /// nghttp2's text for the code.
    var text: String
    /// What the session was doing.
    var activity: String

    init(code: Int32, doing activity: String) {
        self.code = code
        self.text = String(cString: nghttp2_strerror(code))
        self.activity = activity
    }

    var description: String { "nghttp2 failed \(activity): \(text)" }
}
