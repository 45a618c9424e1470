import CNGHTTP2

/// What nghttp2's callbacks write to while a session reads or writes: the events for
/// ``NGHTTP2Session/takeEvents()``, the header block being received per stream (with its running
/// size, checked against the limits field by field) and the request bodies still to send.
///
/// Reached from C through the session's `user_data`; the session owns it and outlives every
/// callback, which only run inside the session's own calls, on its thread.
final class NGHTTP2CallbackState {
    private struct Block {
        var fields: [HTTP2Field] = []
        var listBytes = 0
        var regularFields = 0
    }

    let maxHeaderListBytes: Int
    let maxHeaderCount: Int
    var events: [NGHTTP2Event] = []
    /// Request bodies not yet sent, per stream; a slice shares the request's storage.
    var bodies: [Int32: ArraySlice<UInt8>] = [:]
    /// Request bodies pulled from the caller as they are sent, per stream.
    var pulledBodies: [Int32: NGHTTP2Session.BodyPull] = [:]
    /// The latest error text nghttp2 gave, for the connection error that may follow it.
    var lastErrorText = ""
    /// The value of a `:status` field nghttp2 just refused, from its error text, for the
    /// invalid-frame callback that follows at once.
    var refusedStatusValue: [UInt8]?
    private var blocks: [Int32: Block] = [:]

    init(maxHeaderListBytes: Int, maxHeaderCount: Int) {
        self.maxHeaderListBytes = maxHeaderListBytes
        self.maxHeaderCount = maxHeaderCount
    }

    static func from(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2CallbackState? {
        userData.map { Unmanaged<NGHTTP2CallbackState>.fromOpaque($0).takeUnretainedValue() }
    }

    func beginBlock(_ streamID: Int32) {
        blocks[streamID] = Block()
    }

    /// Adds a field to the stream's block; returns the limit it broke instead, if any.
    func add(_ streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> HTTP2HeaderLimit? {
        var block = blocks[streamID] ?? Block()
        // RFC 9113 §6.5.2: the size of a field is its name and value octets plus 32.
        block.listBytes += name.count + value.count + 32
        if name.first != UInt8(ascii: ":") { block.regularFields += 1 }
        if block.listBytes > maxHeaderListBytes {
            blocks[streamID] = nil
            return .listBytes(maxHeaderListBytes)
        }
        if block.regularFields > maxHeaderCount {
            blocks[streamID] = nil
            return .fieldCount(maxHeaderCount)
        }
        block.fields.append(
            HTTP2Field(
                name: String(decoding: name, as: UTF8.self),
                value: String(decoding: value, as: UTF8.self)))
        blocks[streamID] = block
        return nil
    }

    /// The `:status` values the stream's block carried so far, in order.
    func statusValues(_ streamID: Int32) -> [[UInt8]] {
        (blocks[streamID]?.fields ?? []).filter { $0.name == ":status" }.map { Array($0.value.utf8) }
    }

    func takeBlock(_ streamID: Int32) -> [HTTP2Field] {
        blocks.removeValue(forKey: streamID)?.fields ?? []
    }

    /// The most body bytes one ``NGHTTP2Event/data(streamID:bytes:)`` event gathers.
    static let maxCoalescedDataBytes = 64 * 1024

    /// Adds body bytes for `streamID`: to the previous event when it holds the same stream's
    /// bytes (a read of many small DATA frames, as nginx's 8 KiB chunks are, becomes one chunk
    /// for the reader, not one wake-up per frame), else as a new event.
    func appendData(_ bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32) {
        if case .data(let previousStream, var previous)? = events.last, previousStream == streamID,
            previous.count + bytes.count <= Self.maxCoalescedDataBytes
        {
            // Taken out first, so the array is not shared and grows in place.
            events.removeLast()
            previous.append(contentsOf: bytes)
            events.append(.data(streamID: streamID, bytes: previous))
        } else {
            events.append(.data(streamID: streamID, bytes: Array(bytes)))
        }
    }

    func forget(_ streamID: Int32) {
        blocks[streamID] = nil
        bodies[streamID] = nil
        pulledBodies[streamID] = nil
    }
}

/// The C callbacks of every ``NGHTTP2Session``: each turns what nghttp2 reports into an
/// ``NGHTTP2Event`` on the session's ``NGHTTP2CallbackState``. None captures context (C function
/// pointers cannot); they find the state through `user_data`.
enum NGHTTP2Callbacks {
    private static let endStream = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)
    private static let ack = UInt8(NGHTTP2_FLAG_ACK.rawValue)

    /// Sets every callback the session needs on `callbacks`.
    static func install(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            state.beginBlock(frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { session, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            guard
                let exceeded = state.add(
                    streamID, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength))
            else {
                return 0
            }
            state.events.append(.headerLimitExceeded(streamID: streamID, exceeded))
            // Cancel rather than nghttp2's default INTERNAL_ERROR: the client gave up, the server did nothing wrong in HTTP/2 terms.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.cancel.rawValue)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { session, frame, userData in
            guard let session, let frame, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            if let event = NGHTTP2Callbacks.event(received: frame.pointee, session: session, state: state) { state.events.append(event) }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            guard let data, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            state.appendData(UnsafeBufferPointer(start: data, count: length), on: streamID)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, code, userData in
            guard let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            state.forget(streamID)
            state.events.append(.closed(streamID: streamID, code: HTTP2ErrorCode(rawValue: code)))
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, libraryError, userData in
            guard let frame, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            let reason = String(cString: nghttp2_strerror(libraryError))
            state.lastErrorText = reason
            let streamID = frame.pointee.hd.stream_id
            let refusedStatus = state.refusedStatusValue
            state.refusedStatusValue = nil
            if let refusedStatus, streamID != 0, libraryError == NGHTTP2_ERR_HTTP_HEADER.rawValue {
                state.events.append(.statusRefused(streamID: streamID, values: state.statusValues(streamID) + [refusedStatus]))
            } else if streamID != 0 {
                state.events.append(.malformed(streamID: streamID, reason: reason))
            }
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, libraryError, message, length, userData in
            guard let message, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            let text = UnsafeRawBufferPointer(start: message, count: length)
            state.lastErrorText = String(decoding: text, as: UTF8.self)
            state.refusedStatusValue =
                libraryError == NGHTTP2_ERR_HTTP_HEADER.rawValue
                ? NGHTTP2Callbacks.refusedStatusValue(inErrorText: text) : nil
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame, let state = NGHTTP2CallbackState.from(userData) else { return 0 }
            let header = frame.pointee.hd
            switch Int(header.type) {
            case Int(NGHTTP2_HEADERS.rawValue), Int(NGHTTP2_DATA.rawValue):
                state.events.append(.sent(streamID: header.stream_id))
            case Int(NGHTTP2_GOAWAY.rawValue):
                // nghttp2 sends GOAWAY with an error code when it ends the connection over a
                // protocol violation by the server (RFC 9113 §5.4.1).
                let code = HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code)
                if code != .noError { state.events.append(.connectionError(code: code, reason: state.lastErrorText)) }
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, userData in
            guard let frame, let state = NGHTTP2CallbackState.from(userData),
                Int(frame.pointee.hd.type) == Int(NGHTTP2_HEADERS.rawValue)
            else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            state.forget(streamID)
            // Only these two mean "the connection can take no new stream": the request itself is fine.
            let refused =
                libraryError == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue
                || libraryError == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue
            state.events.append(
                .notSent(
                    streamID: streamID, refused: refused,
                    reason: String(cString: nghttp2_strerror(libraryError))))
            return 0
        }
    }

    /// The text nghttp2 (1.x, `session_call_error_callback` in `inflate_header_block`) gives
    /// for a header field its HTTP messaging checks refuse, up to the value.
    private static let refusedStatusPrefix = Array("name: [:status], value: [".utf8)

    /// The value of the `:status` field named by nghttp2's error text for a refused header field
    /// ("... name: [:status], value: [2OO]"), or nil for any other field or text: nghttp2 offers
    /// the refused field nowhere else. The name is fixed, so the value runs from just after it to
    /// the text's final `]`, whatever bytes it holds.
    static func refusedStatusValue(inErrorText text: UnsafeRawBufferPointer) -> [UInt8]? {
        let prefix = refusedStatusPrefix
        guard text.count > prefix.count, text.last == UInt8(ascii: "]") else { return nil }
        for start in 0...(text.count - prefix.count - 1) where text[start..<(start + prefix.count)].elementsEqual(prefix) {
            return Array(text[(start + prefix.count)..<(text.count - 1)])
        }
        return nil
    }

    /// The event for a complete frame the server sent, if it means anything to the client.
    private static func event(
        received frame: nghttp2_frame, session: OpaquePointer,
        state: NGHTTP2CallbackState
    ) -> NGHTTP2Event? {
        let header = frame.hd
        switch Int(header.type) {
        case Int(NGHTTP2_HEADERS.rawValue):
            return .headers(
                streamID: header.stream_id, fields: state.takeBlock(header.stream_id),
                endStream: header.flags & endStream != 0)
        case Int(NGHTTP2_DATA.rawValue):
            return header.flags & endStream != 0 ? .endStream(streamID: header.stream_id) : nil
        case Int(NGHTTP2_RST_STREAM.rawValue):
            return .reset(streamID: header.stream_id, code: HTTP2ErrorCode(rawValue: frame.rst_stream.error_code))
        case Int(NGHTTP2_GOAWAY.rawValue):
            let goaway = frame.goaway
            let debug = goaway.opaque_data.map { HTTPGrammar.excerpt(UnsafeBufferPointer(start: $0, count: goaway.opaque_data_len)) }
            return .goAway(
                lastStreamID: goaway.last_stream_id, code: HTTP2ErrorCode(rawValue: goaway.error_code),
                debug: debug ?? "")
        case Int(NGHTTP2_SETTINGS.rawValue):
            guard header.flags & ack == 0 else { return nil }
            return .settings(
                maxConcurrentStreams: Int(
                    nghttp2_session_get_remote_settings(
                        session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)))
        case Int(NGHTTP2_PING.rawValue):
            return header.flags & ack != 0 ? .pingAcknowledged : nil
        default:
            return nil
        }
    }

    /// Copies the next piece of a request body into nghttp2's frame buffer, within the
    /// flow-control window nghttp2 computed (`length`), and flags the end of the body.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags, let state = NGHTTP2CallbackState.from(userData) else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        if let pull = state.pulledBodies[streamID] {
            switch pull(UnsafeMutableRawBufferPointer(start: buffer, count: length)) {
            case let .bytes(count, end):
                if end {
                    flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
                    state.pulledBodies[streamID] = nil
                }
                return count
            case .wait:
                // nghttp2 stops asking until the session's resumeBody(streamID:).
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
        }
        let remaining = state.bodies[streamID] ?? []
        let count = min(length, remaining.count)
        remaining.prefix(count).withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count) }
        }
        let rest = remaining.dropFirst(count)
        state.bodies[streamID] = rest.isEmpty ? nil : rest
        if rest.isEmpty { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return count
    }
}
