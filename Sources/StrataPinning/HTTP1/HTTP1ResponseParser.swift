import Foundation
import Strata

/// An incremental HTTP/1.1 response parser: push bytes in as they arrive from any byte source and
/// it returns each complete response.
///
/// It reads status lines of HTTP/1.0 and HTTP/1.1, header fields, and bodies framed by
/// `Content-Length`, by `Transfer-Encoding: chunked` (extensions ignored, trailers kept) or by
/// the connection closing (RFC 9112 §6.3). Responses to `HEAD` and `204`/`304` responses have no
/// body; interim `1xx` responses are skipped, except `101`, which is an error because this
/// client never asks for an upgrade.
///
/// Usage: call ``expectResponse(to:)`` once per request, then feed bytes with ``feed(_:)`` or
/// read them in place with ``receive(_:)`` and ``parse()`` until a response comes back; at end
/// of stream call ``finish()``. Bytes after a complete response stay buffered for the next one.
///
/// Streaming mode (``expectResponse(to:streamingBody:)`` with `true`): ``parse()`` returns the
/// head as soon as it is complete (with an empty body), and the body's bytes are taken as they
/// are parsed with ``takeBodyBytes()``; the response returned at the end carries the last bytes
/// and the trailers. A streamed body is not capped by ``HTTPLimits/maxResponseBodyBytes`` (its
/// reader holds what it wants); chunk-size lines, the head and trailers stay bounded.
///
/// Every fault is an ``HTTP1ResponseError``; after one the parser stays failed. Every loop
/// consumes bytes or stops, so parsing always terminates, and all growth is bounded by
/// ``HTTPLimits``. Parsing works on raw bytes; strings are made only for header names/values.
struct HTTP1ResponseParser: Sendable {
    private enum State: Equatable {
        /// No response is expected; bytes are only buffered.
        case idle
        case statusLine
        case headers
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case bodyUntilClose
    }

    /// What has been read of the current response head and trailer section.
    private struct Head {
        var version: HTTP1Response.Version = .http1_1
        var statusCode = 0
        var headers = HTTPHeaders()
        var trailers = HTTPHeaders()
        /// Bytes and fields of the section being read (head, then trailers), for the limits.
        var sectionBytes = 0
        var sectionFields = 0
        var contentLength: Int?
        var transferCodingCount = 0
        var lastTransferCodingIsChunked = false
        var connectionClose = false
        var connectionKeepAlive = false
        var framing: HTTP1Response.Framing = .none
        var keepAlive = false
    }

    /// The limits applied to every response.
    let limits: HTTPLimits
    private var buffer = HTTP1ReceiveBuffer()
    private var state = State.idle
    private var isResponseToHead = false
    private var head = Head()
    private var body = Data()
    /// Body bytes parsed for the current response, taken or not (for truncation errors).
    private var receivedBodyBytes = 0
    /// The body is handed out as it is parsed and not capped by `maxResponseBodyBytes`.
    private var streamsBody = false
    private var interimStatusCodes: [Int] = []
    /// How much of the pending, unterminated line has already been searched for LF, so feeding
    /// a long line in small pieces stays linear.
    private var scannedBytes = 0
    private var failure: HTTP1ResponseError?

    /// Whether any byte of the expected response (interim responses included) has arrived.
    /// When `false` after a failure, the server sent nothing at all in reply.
    private(set) var hasReceivedResponseBytes = false

    /// Creates a parser that applies `limits`.
    init(limits: HTTPLimits = .default) {
        self.limits = limits
    }

    /// Bytes received but not yet part of a response: after a complete response, bytes the
    /// server sent beyond it.
    var bufferedByteCount: Int { buffer.count }

    /// Prepares to read the response to a request sent with `method`.
    ///
    /// - Parameter streamingBody: Return the head before the body and hand the body out with
    ///   ``takeBodyBytes()`` (see the type's streaming mode) instead of collecting it.
    mutating func expectResponse(to method: HTTPMethod, streamingBody: Bool = false) {
        streamsBody = streamingBody
        receivedBodyBytes = 0
        isResponseToHead = method == .head
        state = .statusLine
        head = Head()
        body = Data()
        interimStatusCodes.removeAll(keepingCapacity: true)
        scannedBytes = 0
        hasReceivedResponseBytes = false
    }

    /// Appends `bytes` and parses as far as they allow.
    ///
    /// - Returns: The response, once complete; `nil` while more bytes are needed.
    /// - Throws: ``HTTP1ResponseError`` when the bytes are not a valid response within the limits.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTP1ResponseError) -> HTTP1Response? {
        if bytes.withContiguousStorageIfAvailable({ buffer.append(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { buffer.append($0) }
        }
        return try parse()
    }

    /// Lets `read` write received bytes straight into the parser's buffer; call ``parse()`` next.
    ///
    /// - Parameter read: Fills the buffer it is given and returns the byte count, 0 at end of stream.
    /// - Returns: What `read` returned.
    mutating func receive<E: Error>(_ read: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) -> Int {
        try buffer.receive(read)
    }

    /// Parses the buffered bytes as far as they allow.
    ///
    /// - Returns: The response, once complete; `nil` while more bytes are needed.
    /// - Throws: ``HTTP1ResponseError`` when the bytes are not a valid response within the limits.
    mutating func parse() throws(HTTP1ResponseError) -> HTTP1Response? {
        if let failure { throw failure }
        do {
            return try advance()
        } catch {
            failure = error
            throw error
        }
    }

    /// Whether the response being read has a body that only the connection's close ends
    /// (RFC 9112 §6.3 rule 8).
    var isReadingUntilClose: Bool { state == .bodyUntilClose }

    /// Whether no response is being read: the last one is complete (or none was expected).
    var isIdle: Bool { state == .idle }

    /// How many body bytes ``takeBodyBytes()`` would take now.
    var bodyByteCount: Int { body.count }

    /// In streaming mode, the body bytes parsed since the last call; empty when there are none.
    mutating func takeBodyBytes() -> Data {
        var taken = Data()
        swap(&taken, &body)
        return taken
    }

    /// The body bytes a fixed-length body still lacks, or nil when the body is not framed by
    /// `Content-Length` (or is complete).
    var remainingFixedBodyBytes: Int? {
        if case .fixedBody(let remaining) = state { return remaining }
        return nil
    }

    /// Handles the end of the stream: completes a close-delimited body, or reports what was cut
    /// short.
    ///
    /// - Returns: The response when the stream's end completes it.
    /// - Throws: ``HTTP1ResponseError``: ``HTTP1ResponseError/closedBeforeResponse`` when nothing
    ///   arrived, otherwise the truncation case for where the stream ended.
    mutating func finish() throws(HTTP1ResponseError) -> HTTP1Response {
        if let response = try parse() { return response }
        let error: HTTP1ResponseError
        switch state {
        case .bodyUntilClose:
            return complete()
        case .idle:
            error = .closedBeforeResponse
        case .statusLine, .headers:
            error =
                hasReceivedResponseBytes
                ? .truncatedHead(receivedBytes: head.sectionBytes + buffer.count)
                : .closedBeforeResponse
        case .fixedBody(let remaining):
            error = .truncatedBody(expectedBytes: receivedBodyBytes + remaining, receivedBytes: receivedBodyBytes)
        case .chunkSizeLine, .chunkData, .chunkDataEnd, .trailers:
            error = .truncatedChunkedBody(receivedBytes: receivedBodyBytes)
        }
        failure = error
        throw error
    }

    // MARK: - State machine

    private mutating func advance() throws(HTTP1ResponseError) -> HTTP1Response? {
        if state != .idle, !buffer.isEmpty { hasReceivedResponseBytes = true }
        while true {
            switch state {
            case .idle:
                return nil
            case .statusLine:
                guard let line = try nextLine(limit: headBudget, tooLong: headTooLarge) else { return nil }
                let (version, status) = try buffer.withUnreadBytes { bytes throws(HTTP1ResponseError) in
                    try HTTP1LineParsing.statusLine(bytes[line.content])
                }
                consumeLine(line)
                head.version = version
                head.statusCode = status
                state = .headers
            case .headers:
                guard let line = try nextLine(limit: headBudget, tooLong: headTooLarge) else { return nil }
                if line.content.isEmpty {
                    consumeLine(line)
                    if let response = try endOfHead() { return response }
                    continue
                }
                let field = try fieldLine(line)
                try apply(field)
                head.headers.add(name: field.name, value: field.value)
            case .fixedBody(let remaining):
                guard !buffer.isEmpty else { return nil }
                let taken = takeBody(upTo: remaining)
                guard taken < remaining else { return complete() }
                state = .fixedBody(remaining: remaining - taken)
            case .chunkSizeLine:
                let tooLong = HTTP1ResponseError.chunkSizeLineTooLong(limit: limits.maxChunkSizeLineBytes)
                guard let line = try nextLine(limit: limits.maxChunkSizeLineBytes, tooLong: tooLong) else { return nil }
                let size = try buffer.withUnreadBytes { bytes throws(HTTP1ResponseError) in
                    try HTTP1LineParsing.chunkSize(bytes[line.content])
                }
                buffer.consume(line.length)
                if size == 0 {
                    head.sectionBytes = 0
                    head.sectionFields = 0
                    state = .trailers
                } else {
                    guard streamsBody || size <= limits.maxResponseBodyBytes - body.count else {
                        throw .bodyTooLarge(limit: limits.maxResponseBodyBytes)
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                guard !buffer.isEmpty else { return nil }
                let taken = takeBody(upTo: remaining)
                state = taken < remaining ? .chunkData(remaining: remaining - taken) : .chunkDataEnd
            case .chunkDataEnd:
                // RFC 9112 §7.1: chunk data is followed by CRLF (a bare LF is tolerated, §2.2).
                guard !buffer.isEmpty else { return nil }
                if buffer[0] == HTTPGrammar.lf {
                    buffer.consume(1)
                } else {
                    guard buffer[0] == HTTPGrammar.cr else { throw .invalidChunkTerminator }
                    guard buffer.count >= 2 else { return nil }
                    guard buffer[1] == HTTPGrammar.lf else { throw .invalidChunkTerminator }
                    buffer.consume(2)
                }
                state = .chunkSizeLine
            case .trailers:
                guard let line = try nextLine(limit: headBudget, tooLong: headTooLarge) else { return nil }
                if line.content.isEmpty {
                    consumeLine(line)
                    return complete()
                }
                let field = try fieldLine(line)
                head.trailers.add(name: field.name, value: field.value)
            case .bodyUntilClose:
                guard !buffer.isEmpty else { return nil }
                guard streamsBody || buffer.count <= limits.maxResponseBodyBytes - body.count else {
                    throw .bodyTooLarge(limit: limits.maxResponseBodyBytes)
                }
                takeBody(upTo: buffer.count)
            }
        }
    }

    /// Decides what follows a complete head: another head after an interim response, no body,
    /// or a body and how it is framed (RFC 9112 §6.3).
    private mutating func endOfHead() throws(HTTP1ResponseError) -> HTTP1Response? {
        if (100..<200).contains(head.statusCode) {
            guard head.statusCode != 101 else { throw .unexpectedSwitchingProtocols }
            interimStatusCodes.append(head.statusCode)
            guard interimStatusCodes.count <= limits.maxInterimResponses else {
                throw .tooManyInterimResponses(limit: limits.maxInterimResponses)
            }
            head = Head()
            state = .statusLine
            return nil
        }
        let framingAllowsReuse: Bool
        (head.framing, framingAllowsReuse) = try framing()
        let connectionAllowsReuse =
            head.version == .http1_1
            ? !head.connectionClose
            : head.connectionKeepAlive && !head.connectionClose
        head.keepAlive = framingAllowsReuse && connectionAllowsReuse
        switch head.framing {
        case .none, .contentLength(0):
            return complete()
        case .contentLength(let length):
            // Announced lengths are bounded by maxResponseBodyBytes already; reserve no more than 1 MiB
            // up front so a lying header cannot make us allocate what never arrives.
            if !streamsBody { body.reserveCapacity(min(length, 1 << 20)) }
            state = .fixedBody(remaining: length)
        case .chunked:
            state = .chunkSizeLine
        case .untilClose:
            state = .bodyUntilClose
        }
        return streamsBody ? headOnly() : nil
    }

    /// The response's head with an empty body, leaving the parser reading its body (streaming mode).
    private func headOnly() -> HTTP1Response {
        HTTP1Response(
            version: head.version, statusCode: head.statusCode, headers: head.headers, body: Data(),
            trailers: HTTPHeaders(), framing: head.framing, keepAlive: head.keepAlive,
            interimStatusCodes: interimStatusCodes)
    }

    /// The body's framing and whether it lets the connection be reused.
    private func framing() throws(HTTP1ResponseError) -> (HTTP1Response.Framing, Bool) {
        if isResponseToHead || head.statusCode == 204 || head.statusCode == 304 { return (.none, true) }
        if head.transferCodingCount > 0 {
            guard head.transferCodingCount == 1, head.lastTransferCodingIsChunked else {
                let value = head.headers.values(for: "Transfer-Encoding").joined(separator: ", ")
                throw .unsupportedTransferEncoding(excerpt: HTTPGrammar.excerpt(Array(value.utf8)))
            }
            // RFC 9112 §6.3 rule 3 and §6.1: chunked wins over Content-Length, and on HTTP/1.0
            // Transfer-Encoding means faulty framing; read the body, then do not reuse the
            // connection, since the server and we may disagree on where the message ended.
            return (.chunked, head.contentLength == nil && head.version == .http1_1)
        }
        if let length = head.contentLength {
            guard streamsBody || length <= limits.maxResponseBodyBytes else { throw .bodyTooLarge(limit: limits.maxResponseBodyBytes) }
            return (.contentLength(length), true)
        }
        return (.untilClose, false)
    }

    private mutating func apply(_ field: HTTP1LineParsing.Field) throws(HTTP1ResponseError) {
        switch field.meaning {
        case .other:
            break
        case .contentLength(let length):
            if let known = head.contentLength, known != length {
                throw .conflictingContentLength(first: known, second: length)
            }
            head.contentLength = length
        case .transferEncoding(let count, let lastIsChunked):
            guard count > 0 else { break }
            head.transferCodingCount += count
            head.lastTransferCodingIsChunked = lastIsChunked
        case .connection(let close, let keepAlive):
            head.connectionClose = head.connectionClose || close
            head.connectionKeepAlive = head.connectionKeepAlive || keepAlive
        }
    }

    private mutating func complete() -> HTTP1Response {
        let response = HTTP1Response(
            version: head.version, statusCode: head.statusCode, headers: head.headers,
            body: body, trailers: head.trailers, framing: head.framing,
            keepAlive: head.keepAlive, interimStatusCodes: interimStatusCodes)
        state = .idle
        head = Head()
        body = Data()
        return response
    }

    // MARK: - Bytes

    private var headBudget: Int { limits.maxHeaderBlockBytes - head.sectionBytes }
    private var headTooLarge: HTTP1ResponseError { .headerBlockTooLarge(limit: limits.maxHeaderBlockBytes) }

    /// A complete line in the buffer: its content (CR LF excluded) and its length with them.
    private struct Line {
        var content: Range<Int>
        var length: Int
    }

    /// The next complete line, or `nil` while its LF has not arrived; throws `tooLong` as soon
    /// as the line is known to be longer than `limit` bytes with its terminator.
    private mutating func nextLine(limit: Int, tooLong: HTTP1ResponseError) throws(HTTP1ResponseError) -> Line? {
        guard let lineFeed = buffer.firstIndex(of: HTTPGrammar.lf, from: scannedBytes) else {
            scannedBytes = buffer.count
            if buffer.count > limit { throw tooLong }
            return nil
        }
        scannedBytes = 0
        guard lineFeed < limit else { throw tooLong }
        // RFC 9112 §2.2: a bare LF may be accepted as a line terminator.
        let contentEnd = lineFeed > 0 && buffer[lineFeed - 1] == HTTPGrammar.cr ? lineFeed - 1 : lineFeed
        return Line(content: 0..<contentEnd, length: lineFeed + 1)
    }

    /// Consumes a head or trailer line, counting it against the section's byte limit.
    private mutating func consumeLine(_ line: Line) {
        buffer.consume(line.length)
        head.sectionBytes += line.length
    }

    /// Parses, counts and consumes one field line of the head or trailer section.
    private mutating func fieldLine(_ line: Line) throws(HTTP1ResponseError) -> HTTP1LineParsing.Field {
        head.sectionFields += 1
        guard head.sectionFields <= limits.maxHeaderCount else { throw .tooManyHeaders(limit: limits.maxHeaderCount) }
        let field = try buffer.withUnreadBytes { bytes throws(HTTP1ResponseError) in
            try HTTP1LineParsing.field(bytes[line.content])
        }
        consumeLine(line)
        return field
    }

    /// Moves up to `limit` buffered bytes into the body and returns how many it moved.
    @discardableResult
    private mutating func takeBody(upTo limit: Int) -> Int {
        let taken = min(limit, buffer.count)
        var collected = Data()
        swap(&collected, &body) // appended in place below, without a copy-on-write of `body`
        buffer.withUnreadBytes { bytes in
            collected.append(UnsafeBufferPointer(rebasing: bytes.assumingMemoryBound(to: UInt8.self)[0..<taken]))
        }
        swap(&collected, &body)
        buffer.consume(taken)
        receivedBodyBytes += taken
        return taken
    }
}
