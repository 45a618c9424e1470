#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension URLSessionTransport {
    /// Sends the request and hands the final response's head to `consume` as soon as it arrives,
    /// then its body as it comes.
    ///
    /// Redirects are followed on the head, as ``send(_:)`` follows them: a 3xx that is followed
    /// never reaches `consume` (its task is cancelled and the follow-up sent), so `consume` sees
    /// exactly one response. The request timeout (or an earlier ``RequestDeadline``) covers the
    /// whole exchange, body and `consume` included. When `consume` returns or throws, the task is
    /// cancelled if still running and the body released; cancelling the calling task cancels it too.
    /// The call does not wait for the cancel: FoundationNetworking stops the transfer once libcurl
    /// lets go of the session's queue, which a peer sending faster than the client can delay.
    ///
    /// A streamed body is not limited in size (``Limits/maxResponseBodyBytes`` applies to `send`
    /// only): bound what you keep yourself. Linux: URLSession cannot pause a download, so the
    /// body arrives as fast as the network gives it, and a consumer more than
    /// ``Limits/maxStreamLagBytes`` behind fails the body rather than let memory grow with it.
    /// For backpressure down to the socket, pinned hosts go through `PinningTransport`.
    ///
    /// - Parameters:
    ///   - request: The request to send. Its URL must be absolute (`http` or `https`).
    ///   - consume: Reads the response; what it returns is returned. Read the body inside it.
    /// - Returns: What `consume` returned.
    /// - Throws: What ``send(_:)`` throws before the head; reading the body throws
    ///   ``TransportError`` (the connection, the deadline, ``Limits/maxStreamLagBytes``) or
    ///   `CancellationError`; and what `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await RequestDeadline.withTimeout(
            wholeRequestTimeout,
            setBy: "URLSessionTransport's requestTimeout, "
                + "or the configuration's timeoutIntervalForResource"
        ) {
            var current = request
            var redirects = 0
            while true {
                let (exchange, head, channel) = try await startStreaming(current)
                let response = HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)
                if limits.maxRedirects > 0, !RedirectPolicy.isFollowedAbove,
                    let location = RedirectPolicy.target(of: response, for: current)
                {
                    let followUp: HTTPRequest?
                    do {
                        try RedirectPolicy.check(location, from: current, safety: redirectSafety)
                        followUp = RedirectPolicy.followUp(
                            to: current, status: head.statusCode, location: location,
                            secrets: redirectSafety.secrets)
                    } catch {
                        Self.close(exchange, channel)
                        throw error
                    }
                    if let followUp {
                        // The redirect's own body is of no use: stop reading it and send the follow-up.
                        Self.close(exchange, channel)
                        redirects += 1
                        guard redirects <= limits.maxRedirects else {
                            throw TransportError(
                                .tooManyRedirects, method: current.method, url: request.url,
                                message:
                                    "more than \(limits.maxRedirects) redirects (URLSessionTransport.Limits.maxRedirects)")
                        }
                        current = followUp
                        continue
                    }
                }
                defer { Self.close(exchange, channel) }
                return try await withTaskCancellationHandler {
                    try await consume(head, channel.body(length: Self.declaredLength(head, method: current.method)))
                } onCancel: {
                    exchange.cancel()
                }
            }
        }
    }

    /// Starts `request` and waits for its head; the body then flows into the returned channel.
    private func startStreaming(_ request: HTTPRequest) async throws
        -> (URLSessionExchange, HTTPResponseHead, BodyChannel)
    {
        let exchange = try await URLSessionExchange(try await Self.withBodyInMemoryIfSinglePass(request), on: owner)
        // No pause is possible (see Limits.maxStreamLagBytes), so the channel's pause threshold
        // is the most a consumer may fall behind.
        let channel = BodyChannel(highWatermark: limits.maxStreamLagBytes)
        let delegate = owner.delegate
        do {
            let head = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard
                        delegate.register(
                            exchange.task, request: exchange.foundation,
                            channel: channel, head: continuation)
                    else { return }
                    exchange.start()
                }
            } onCancel: {
                exchange.cancel()
            }
            return (exchange, head, channel)
        } catch {
            close(exchange, channel)
            throw error
        }
    }

    /// Stops the exchange and drops what it buffered: nothing outlives the call.
    private static func close(_ exchange: URLSessionExchange, _ channel: BodyChannel) {
        channel.release()
        exchange.end()
    }

    private func close(_ exchange: URLSessionExchange, _ channel: BodyChannel) { Self.close(exchange, channel) }

    /// The body's length from `Content-Length`, when the response declares one and is not encoded
    /// (libcurl decodes a `Content-Encoding`, so the length would not match what is delivered).
    private static func declaredLength(_ head: HTTPResponseHead, method: HTTPMethod) -> Int64? {
        // No body whatever Content-Length says (RFC 9110 §6.4.1, §8.6).
        if method == .head || head.statusCode == 204 || head.statusCode == 304 || (100..<200).contains(head.statusCode) {
            return 0
        }
        guard head.headers["Content-Encoding"] == nil,
            let value = head.headers["Content-Length"]
        else { return nil }
        return Int64(value.trimmingCharacters(in: .whitespaces))
    }
}
