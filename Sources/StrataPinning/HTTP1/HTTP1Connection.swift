import Foundation
import Strata
import StrataConnect

/// One HTTP/1.1 connection over a byte stream: sends a request, reads its response, and knows
/// whether it can carry the next one.
///
/// Exchanges are sequential (no pipelining). The connection is reusable after a response that
/// allows keep-alive, when the request did not ask to close, and when the server sent nothing
/// beyond the response: since requests are never pipelined, stray bytes mean the server and
/// this client disagree on where a message ended, and reusing the connection would attribute
/// them to the next request. After any failure the stream is closed.
///
/// The whole-request `deadline` is passed to every read and write and also checked between
/// reads, so a server trickling bytes cannot keep an exchange alive past it; the stream itself
/// enforces its idle timeout between bytes.
///
/// A request body that is not in memory is written after the head from an
/// ``HTTP1RequestBodySource``, chunk by chunk, framed as the encoder said (`Content-Length`, or
/// chunked). A response body can be collected (``send(_:body:deadline:)``) or streamed:
/// ``sendStreaming(_:body:deadline:)`` returns the head, then ``nextBodyPart(deadline:)`` reads
/// from the stream only when asked, one read at a time.
struct HTTP1Connection<Stream: ByteStream> {
    /// The stream the connection runs over.
    let stream: Stream
    private var parser: HTTP1ResponseParser
    private let onEvent: (@Sendable (HTTP1Event) -> Void)?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let acceptsUnauthenticatedEnd: Bool

    /// Whether another request may be sent on this connection.
    private(set) var isReusable = true
    /// How many exchanges completed with a response; a failure on a connection with a non-zero
    /// count happened on a reused connection.
    private(set) var completedExchanges = 0
    /// The request whose response body is being streamed.
    private var streaming: HTTP1Request?
    /// Body bytes of the streamed response handed out so far, for the event at its end.
    private var streamedBytes = 0
    /// A failure met while gathering a body piece, reported by the next ``nextBodyPart(deadline:gatheringLimit:)``
    /// after the bytes that arrived before it.
    private var failureAfterBodyBytes: TransportError?

    /// Creates a connection over a connected `stream`.
    ///
    /// - Parameters:
    ///   - limits: The limits applied to every response.
    ///   - onEvent: Told about every request sent, interim response skipped, response received
    ///     and failure, on the thread running the exchange.
    ///   - now: The clock used to check the whole-request deadline between reads (injectable for tests).
    ///   - acceptsUnauthenticatedEnd: Accept a body delimited by the connection's close when the
    ///     stream ended without the peer's authenticated close (TLS close_notify). Default false:
    ///     such an end may be an attacker cutting the body short.
    init(
        stream: Stream, limits: HTTPLimits = .default, onEvent: (@Sendable (HTTP1Event) -> Void)? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        acceptsUnauthenticatedEnd: Bool = false
    ) {
        self.stream = stream
        self.parser = HTTP1ResponseParser(limits: limits)
        self.onEvent = onEvent
        self.now = now
        self.acceptsUnauthenticatedEnd = acceptsUnauthenticatedEnd
    }

    /// Sends `request` and reads its response, blocking the calling thread.
    ///
    /// - Parameter deadline: When the whole exchange must be over.
    /// - Returns: The final response (interim `1xx` responses are skipped).
    /// - Throws: ``HTTP1ExchangeError`` carrying a `TransportError`: `timedOut` for the deadline
    ///   or the stream's idle timeout, `connectionLost` when the connection closed or reset
    ///   before the response was complete (underlying error ``HTTP1ResponseError`` for an early
    ///   end of stream), `invalidResponse` with an underlying ``HTTP1ResponseError`` for bytes
    ///   that are not a valid response within the limits, `other` when the connection was no
    ///   longer reusable. The connection is then closed.
    mutating func send(
        _ request: HTTP1Request, body: (any HTTP1RequestBodySource)? = nil,
        deadline: ContinuousClock.Instant
    ) throws(HTTP1ExchangeError) -> HTTP1Response {
        let response = try start(request, body: body, streamingBody: false, deadline: deadline)
        finished(response, to: request)
        return response
    }

    /// Sends `request` like ``send(_:body:deadline:)`` but returns as soon as the response's head
    /// is read: its body (empty in the value returned) follows from ``nextBodyPart(deadline:)``
    /// while ``isReadingBody``. A streamed body is not capped by
    /// ``HTTPLimits/maxResponseBodyBytes``; every other limit applies.
    ///
    /// - Throws: What ``send(_:body:deadline:)`` throws.
    mutating func sendStreaming(
        _ request: HTTP1Request, body: (any HTTP1RequestBodySource)? = nil,
        deadline: ContinuousClock.Instant
    ) throws(HTTP1ExchangeError) -> HTTP1Response {
        let head = try start(request, body: body, streamingBody: true, deadline: deadline)
        if parser.isIdle {
            finished(head, to: request)
        } else {
            streaming = request
        }
        return head
    }

    /// Whether a streamed response's body is still being read.
    var isReadingBody: Bool { streaming != nil }

    /// Whether the body being streamed ends only when the server closes the connection.
    var isReadingUntilClose: Bool { streaming != nil && parser.isReadingUntilClose }

    /// The bytes a `Content-Length` body being streamed still lacks; nil for another framing.
    var remainingBodyBytes: Int? { streaming == nil ? nil : parser.remainingFixedBodyBytes }

    /// A piece of a streamed response body.
    enum BodyPart {
        /// Body bytes, in order.
        case bytes(Data)
        /// The end: the complete response (its body holds the last bytes, if any, and its trailers).
        case end(HTTP1Response)
    }

    /// The next piece of the body being streamed: what is buffered, or else what one read of the
    /// stream brings (blocking until bytes arrive, the idle timeout, or `deadline`).
    ///
    /// - Parameter gatheringLimit: Up to how many bytes a piece gathers from what has already
    ///   arrived (read without waiting) before it is returned: one piece per batch instead of one
    ///   per TLS record, so a fast body costs its reader fewer wake-ups. 0 returns each read's bytes.
    /// - Throws: ``HTTP1ExchangeError`` as ``send(_:body:deadline:)`` does; the connection is then closed.
    mutating func nextBodyPart(deadline: ContinuousClock.Instant, gatheringLimit: Int = 0) throws(HTTP1ExchangeError)
        -> BodyPart
    {
        guard let request = streaming else {
            throw HTTP1ExchangeError(
                error: TransportError(.other, message: "no response body is being read"),
                receivedResponseBytes: true)
        }
        do throws(TransportError) {
            if let failure = failureAfterBodyBytes {
                failureAfterBodyBytes = nil
                throw failure
            }
            while true {
                let response: HTTP1Response?
                do {
                    response = try parsed(
                        request,
                        { (parser: inout HTTP1ResponseParser) throws(HTTP1ResponseError) in
                            try parser.parse()
                        })
                } catch {
                    // Bytes that arrived before the bad ones are the server's: handed over first.
                    guard parser.bodyByteCount > 0 else { throw error }
                    failureAfterBodyBytes = error
                    return takeBodyBytes()
                }
                if let response {
                    streaming = nil
                    finished(response, to: request)
                    return .end(response)
                }
                if parser.bodyByteCount > 0 {
                    // What has already arrived goes with these bytes, parsed in place. A failure
                    // (a reset) comes after them, on the next call: reading again would not see
                    // it (a reset socket then reads as a clean end).
                    if parser.bodyByteCount < gatheringLimit {
                        do {
                            if try receiveWithoutWaiting() { continue }
                        } catch {
                            failureAfterBodyBytes = error
                        }
                    }
                    return takeBodyBytes()
                }
                if let response = try receive(for: request, deadline: deadline) {
                    streaming = nil
                    finished(response, to: request)
                    return .end(response)
                }
            }
        } catch {
            streaming = nil
            throw failed(request, error)
        }
    }

    /// Writes `request` (and its streamed body) and reads the response, or only its head.
    private mutating func start(
        _ request: HTTP1Request, body: (any HTTP1RequestBodySource)?, streamingBody: Bool,
        deadline: ContinuousClock.Instant
    ) throws(HTTP1ExchangeError) -> HTTP1Response {
        guard isReusable, streaming == nil else {
            throw HTTP1ExchangeError(
                error: TransportError(
                    .other, method: request.method, url: request.url,
                    message: "the connection was closed after an earlier exchange; send on a new connection"),
                receivedResponseBytes: false)
        }
        parser.expectResponse(to: request.method, streamingBody: streamingBody)
        do {
            try write(request, body: body, deadline: deadline)
            return try readResponse(to: request, deadline: deadline)
        } catch {
            throw failed(request, error)
        }
    }

    /// Closes the connection after `error` and says whether any response byte had arrived.
    private mutating func failed(_ request: HTTP1Request, _ error: TransportError) -> HTTP1ExchangeError {
        isReusable = false
        stream.close()
        var failure = error
        failure.method = failure.method ?? request.method
        failure.url = failure.url ?? request.url
        onEvent?(.failed(kind: failure.kind, message: failure.message))
        return HTTP1ExchangeError(error: failure, receivedResponseBytes: parser.hasReceivedResponseBytes)
    }

    /// Decides whether the connection can carry another request after `response`.
    private mutating func finished(_ response: HTTP1Response, to request: HTTP1Request) {
        completedExchanges += 1
        isReusable = response.keepAlive && !request.closesConnection && parser.bufferedByteCount == 0
        if !isReusable { stream.close() }
        if let onEvent {
            for statusCode in response.interimStatusCodes { onEvent(.interimResponseSkipped(statusCode: statusCode)) }
            onEvent(
                .responseReceived(
                    statusCode: response.statusCode, bodyBytes: response.body.count + streamedBytes,
                    keepAlive: isReusable))
        }
        streamedBytes = 0
    }

    /// Closes the connection; it is no longer reusable.
    mutating func close() {
        isReusable = false
        streaming = nil
        stream.close()
    }

    private func write(
        _ request: HTTP1Request, body: (any HTTP1RequestBodySource)?,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) {
        try checkDeadline(request, deadline)
        try write(request.bytes[...], deadline: deadline)
        var sent = request.bytes.count
        if let framing = request.streamedBody {
            guard let body else {
                throw TransportError(.invalidRequest, message: "the request's body was not given to the connection")
            }
            sent += try writeBody(from: body, framing: framing, request: request, deadline: deadline)
        }
        onEvent?(.requestSent(method: request.method, bytes: sent))
    }

    /// Writes a body read from `body` as `framing` says, and returns how many bytes went out.
    private func writeBody(
        from body: any HTTP1RequestBodySource, framing: HTTP1Request.StreamedBody,
        request: HTTP1Request, deadline: ContinuousClock.Instant
    ) throws(TransportError) -> Int {
        var written: Int64 = 0
        var sent = 0
        while let chunk = try body.next(deadline: deadline) {
            guard !chunk.isEmpty else { continue }
            try checkDeadline(request, deadline)
            written += Int64(chunk.count)
            // The body's iterator checks its declared length too; this keeps the framing honest
            // whatever the source.
            if let length = framing.length, written > length {
                throw TransportError(
                    .invalidRequest,
                    message: HTTPRequestError.unreadableBody(
                        .lengthMismatch(expected: length, actual: written)
                    ).description)
            }
            switch framing {
            case .contentLength:
                try write(chunk, deadline: deadline)
                sent += chunk.count
            case .chunked:
                // One write per chunk (size line, data, CRLF): one TLS record instead of three.
                var framed: [UInt8] = []
                framed.reserveCapacity(chunk.count + 20)
                framed.append(contentsOf: String(chunk.count, radix: 16).utf8)
                framed.append(contentsOf: [HTTPGrammar.cr, HTTPGrammar.lf])
                framed.append(contentsOf: chunk)
                framed.append(contentsOf: [HTTPGrammar.cr, HTTPGrammar.lf])
                try write(framed[...], deadline: deadline)
                sent += framed.count
            }
        }
        if let length = framing.length, written != length {
            throw TransportError(
                .invalidRequest,
                message: HTTPRequestError.unreadableBody(
                    .lengthMismatch(expected: length, actual: written)
                ).description)
        }
        if framing == .chunked {
            // RFC 9112 §7.1: the last chunk, no trailers, the final CRLF.
            let last: [UInt8] = Array("0\r\n\r\n".utf8)
            try write(last[...], deadline: deadline)
            sent += last.count
        }
        return sent
    }

    private func write(_ bytes: ArraySlice<UInt8>, deadline: ContinuousClock.Instant) throws(TransportError) {
        let stream = stream
        let outcome: Result<Void, TransportError> = bytes.withUnsafeBytes { raw in
            do throws(TransportError) {
                return .success(try stream.write(raw, deadline: deadline))
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    private mutating func readResponse(to request: HTTP1Request, deadline: ContinuousClock.Instant) throws(TransportError) -> HTTP1Response
    {
        while true {
            if let response = try parsed(
                request,
                { (parser: inout HTTP1ResponseParser) throws(HTTP1ResponseError) in
                    try parser.parse()
                })
            {
                return response
            }
            if let response = try receive(for: request, deadline: deadline) { return response }
        }
    }

    /// The body bytes parsed so far, as the next piece.
    private mutating func takeBodyBytes() -> BodyPart {
        let bytes = parser.takeBodyBytes()
        streamedBytes += bytes.count
        return .bytes(bytes)
    }

    /// Reads into the parser what has already arrived, without waiting; `false` when nothing
    /// has (or the stream ended: the next waiting read sees that end and handles it). The
    /// deadline is left to that waiting read.
    private mutating func receiveWithoutWaiting() throws(TransportError) -> Bool {
        let stream = stream
        var arrived = false
        _ = try parser.receive { (buffer) throws(TransportError) -> Int in
            let count = try stream.readWithoutWaiting(into: buffer) ?? 0
            arrived = count > 0
            return count
        }
        return arrived
    }

    /// Reads once from the stream into the parser; at the end of the stream, the response that
    /// end completes (or the error for what it cut short).
    private mutating func receive(for request: HTTP1Request, deadline: ContinuousClock.Instant) throws(TransportError) -> HTTP1Response? {
        let stream = stream
        try checkDeadline(request, deadline)
        let count = try parser.receive { (buffer) throws(TransportError) -> Int in
            try stream.read(into: buffer, deadline: deadline)
        }
        guard count == 0 else { return nil }
        if parser.isReadingUntilClose, !acceptsUnauthenticatedEnd, !stream.endOfStreamIsAuthenticated {
            throw TransportError(
                .connectionLost, method: request.method, url: request.url,
                message:
                    "the server closed the connection without a TLS close_notify, and this response's body ends "
                    + "only at the close, so a cut made by anyone on the path cannot be told from the real end; "
                    + "if the server is known to close this way, set "
                    + "PinningTransport.Configuration.acceptsBodyEndWithoutCloseNotify")
        }
        return try parsed(request) { (parser: inout HTTP1ResponseParser) throws(HTTP1ResponseError) in
            try parser.finish()
        }
    }

    /// Runs a parser step, turning its error into the `TransportError` callers see.
    private mutating func parsed<R>(
        _ request: HTTP1Request,
        _ step: (inout HTTP1ResponseParser) throws(HTTP1ResponseError) -> R
    ) throws(TransportError) -> R {
        do {
            return try step(&parser)
        } catch {
            // An early end of stream is a lost connection (transient); anything else is the
            // server's bytes breaking the protocol or a limit.
            throw TransportError(
                error.isTruncation ? .connectionLost : .invalidResponse, method: request.method,
                url: request.url, message: error.description, underlying: error)
        }
    }

    private func checkDeadline(_ request: HTTP1Request, _ deadline: ContinuousClock.Instant) throws(TransportError) {
        guard now() < deadline else {
            throw TransportError(
                .timedOut, method: request.method, url: request.url,
                message: "the whole-request deadline passed before the response was complete")
        }
    }
}

extension HTTP1Connection: Sendable where Stream: Sendable {}
