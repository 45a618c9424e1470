import Foundation

/// The I/O of an ``EventSource``: connects, reads events into the hand-over, and asks
/// ``ReconnectPolicy`` what to do when a connection ends. Every decision is the policy's.
struct EventSourceConnections: Sendable {
    let transport: any Transport
    let makeRequest: @Sendable () async throws -> HTTPRequest
    let connectionTimeout: Duration?
    let policy: ReconnectPolicy
    let maxEventBytes: Int
    let clock: ErasedClock

    /// Connects until the policy finishes or fails the stream, starting from `lastEventID`.
    ///
    /// - Throws: The policy's error, what building the request throws, or `CancellationError`.
    func run(from lastEventID: String?, into handoff: ElementHandoff<ServerSentEvent>) async throws {
        var parser = ServerSentEventParser(maxEventBytes: maxEventBytes, lastEventID: lastEventID)
        var failedAttempts = 0
        while true {
            let request = Self.prepared(try await makeRequest(), lastEventID: parser.lastEventID)
            let end = try await connect(request, parser: &parser, handoff: handoff)
            // The last event ID and reconnection time outlive the connection; nothing else does.
            parser = ServerSentEventParser(
                maxEventBytes: maxEventBytes, lastEventID: parser.lastEventID,
                reconnectionTime: parser.reconnectionTime)
            failedAttempts = end.isFailedAttempt ? failedAttempts + 1 : 0
            switch policy.decision(after: end, failedAttempts: failedAttempts, serverDelay: parser.reconnectionTime) {
            case .finish: return
            case .fail(let error): throw error
            case .reconnect(let wait):
                try Task.checkCancellation()
                try await clock.sleep(for: wait)
            }
        }
    }

    /// `request` with the event-stream headers: `Accept` and `Cache-Control` as EventSource sends
    /// them, and `Last-Event-ID` when there is an ID a header can carry.
    static func prepared(_ request: HTTPRequest, lastEventID: String?) -> HTTPRequest {
        var request = request
        request.headers["Accept"] = "text/event-stream"
        request.headers["Cache-Control"] = "no-cache"
        request.headers["Last-Event-ID"] = nil
        // An ID holding a control character other than tab cannot be a header value (it could
        // split the request); the stream then resumes as if it had set none.
        if let lastEventID, (try? HTTPHeaders.validate(name: "Last-Event-ID", value: lastEventID)) != nil {
            request.headers["Last-Event-ID"] = lastEventID
        }
        return request
    }

    /// Whether a `Content-Type` is `text/event-stream`, parameters (a charset) aside.
    static func isEventStream(_ contentType: String?) -> Bool {
        guard let essence = contentType?.split(separator: ";", maxSplits: 1).first else { return false }
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// Sends `request` once and hands the events of an accepted response to `handoff`.
    ///
    /// - Returns: How the connection ended.
    /// - Throws: ``ServerSentEventError/eventTooLarge(limit:)`` or `CancellationError` (the
    ///   consumer left); every other failure is an end the policy decides on.
    private func connect(
        _ request: HTTPRequest, parser: inout ServerSentEventParser,
        handoff: ElementHandoff<ServerSentEvent>
    ) async throws -> EventSourceConnectionEnd {
        do {
            guard let connectionTimeout else { return try await exchange(request, parser: &parser, handoff: handoff) }
            return try await RequestDeadline.withTimeout(connectionTimeout) {
                try await exchange(request, parser: &parser, handoff: handoff)
            }
        } catch let error as ServerSentEventError {
            throw error
        } catch {
            try Task.checkCancellation()
            if error is CancellationError { throw error }
            return .failedToConnect(error)
        }
    }

    private func exchange(
        _ request: HTTPRequest, parser: inout ServerSentEventParser,
        handoff: ElementHandoff<ServerSentEvent>
    ) async throws -> EventSourceConnectionEnd {
        try await transport.stream(request) { head, body in
            if head.statusCode == 204 { return .noContent }
            guard head.statusCode == 200 else {
                let shown = (try? await body.collect(upTo: EventSource.maxRejectedBodyBytes)) ?? Data()
                return .rejected(HTTPResponse(statusCode: head.statusCode, headers: head.headers, body: shown, url: head.url))
            }
            guard Self.isEventStream(head.headers["Content-Type"]) else { return .notEventStream(head) }
            var events: [ServerSentEvent] = []
            var delivered = false
            do {
                for try await chunk in body {
                    var failure: (any Error)?
                    do { try parser.parse(chunk, into: &events) } catch { failure = error }
                    // The events before a failure in the same chunk are delivered first.
                    for event in events { try await handoff.send(event) }
                    delivered = delivered || !events.isEmpty
                    events.removeAll(keepingCapacity: true)
                    if let failure { throw failure }
                }
                parser.finish()
                return .ended(delivered: delivered)
            } catch let error as ServerSentEventError {
                throw error
            } catch {
                try Task.checkCancellation()
                if error is CancellationError { throw error }
                return .dropped(error, delivered: delivered)
            }
        }
    }
}
