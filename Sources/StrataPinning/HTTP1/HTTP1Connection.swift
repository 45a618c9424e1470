import Strata

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
struct HTTP1Connection<Stream: HTTP1ByteStream> {
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
    init(stream: Stream, limits: HTTP1Limits = .default, onEvent: (@Sendable (HTTP1Event) -> Void)? = nil,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
         acceptsUnauthenticatedEnd: Bool = false) {
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
    mutating func send(_ request: HTTP1Request, deadline: ContinuousClock.Instant) throws(HTTP1ExchangeError) -> HTTP1Response {
        guard isReusable else {
            throw HTTP1ExchangeError(error: TransportError(.other, method: request.method, url: request.url,
                message: "the connection was closed after an earlier exchange; send on a new connection"),
                receivedResponseBytes: false)
        }
        parser.expectResponse(to: request.method)
        let response: HTTP1Response
        do {
            try write(request, deadline: deadline)
            response = try readResponse(to: request, deadline: deadline)
        } catch {
            isReusable = false
            stream.close()
            var failure = error
            failure.method = failure.method ?? request.method
            failure.url = failure.url ?? request.url
            onEvent?(.failed(kind: failure.kind, message: failure.message))
            throw HTTP1ExchangeError(error: failure, receivedResponseBytes: parser.hasReceivedResponseBytes)
        }
        completedExchanges += 1
        isReusable = response.keepAlive && !request.closesConnection && parser.bufferedByteCount == 0
        if !isReusable { stream.close() }
        if let onEvent {
            for statusCode in response.interimStatusCodes { onEvent(.interimResponseSkipped(statusCode: statusCode)) }
            onEvent(.responseReceived(statusCode: response.statusCode, bodyBytes: response.body.count,
                                      keepAlive: isReusable))
        }
        return response
    }

    /// Closes the connection; it is no longer reusable.
    mutating func close() {
        isReusable = false
        stream.close()
    }

    private func write(_ request: HTTP1Request, deadline: ContinuousClock.Instant) throws(TransportError) {
        try checkDeadline(request, deadline)
        let stream = stream
        let outcome: Result<Void, TransportError> = request.bytes.withUnsafeBytes { raw in
            do throws(TransportError) {
                return .success(try stream.write(raw, deadline: deadline))
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
        onEvent?(.requestSent(method: request.method, bytes: request.bytes.count))
    }

    private mutating func readResponse(to request: HTTP1Request, deadline: ContinuousClock.Instant) throws(TransportError) -> HTTP1Response {
        let stream = stream
        while true {
            if let response = try parsed(request, { (parser: inout HTTP1ResponseParser) throws(HTTP1ResponseError) in
                try parser.parse()
            }) {
                return response
            }
            try checkDeadline(request, deadline)
            let count = try parser.receive { (buffer) throws(TransportError) -> Int in
                try stream.read(into: buffer, deadline: deadline)
            }
            if count == 0 {
                if parser.isReadingUntilClose, !acceptsUnauthenticatedEnd, !stream.endOfStreamIsAuthenticated {
                    throw TransportError(.connectionLost, method: request.method, url: request.url, message:
                        "the server closed the connection without a TLS close_notify, and this response's body ends "
                        + "only at the close, so a cut made by anyone on the path cannot be told from the real end; "
                        + "if the server is known to close this way, set "
                        + "PinningTransport.Configuration.acceptsBodyEndWithoutCloseNotify")
                }
                return try parsed(request) { (parser: inout HTTP1ResponseParser) throws(HTTP1ResponseError) in
                    try parser.finish()
                }
            }
        }
    }

    /// Runs a parser step, turning its error into the `TransportError` callers see.
    private mutating func parsed<R>(_ request: HTTP1Request,
                                    _ step: (inout HTTP1ResponseParser) throws(HTTP1ResponseError) -> R) throws(TransportError) -> R {
        do {
            return try step(&parser)
        } catch {
            // An early end of stream is a lost connection (transient); anything else is the
            // server's bytes breaking the protocol or a limit.
            throw TransportError(error.isTruncation ? .connectionLost : .invalidResponse, method: request.method,
                                 url: request.url, message: error.description, underlying: error)
        }
    }

    private func checkDeadline(_ request: HTTP1Request, _ deadline: ContinuousClock.Instant) throws(TransportError) {
        guard now() < deadline else {
            throw TransportError(.timedOut, method: request.method, url: request.url,
                                 message: "the whole-request deadline passed before the response was complete")
        }
    }
}

extension HTTP1Connection: Sendable where Stream: Sendable {}
