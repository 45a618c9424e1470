import Foundation
@testable import Strata

/// A terminal double for event streams: each request takes the next scripted connection (a 204
/// after the last), records the request and the deadline it ran under, and reports each
/// `stream` call that returned on ``ends``.
final class EventStreamScript: Transport, Sendable {
    enum Connection: Sendable {
        /// A response whose body yields `chunks` one at a time, then ends as `end` says.
        case respond(status: Int = 200, contentType: String? = "text/event-stream", chunks: [String], end: BodyEnd = .finish)
        /// No response: the call throws `error`.
        case fail(any Error)

        static func events(_ text: String, end: BodyEnd = .finish) -> Connection { .respond(chunks: [text], end: end) }
    }

    enum BodyEnd: Sendable {
        /// The body ends cleanly.
        case finish
        /// Reading the body fails as a lost connection does.
        case drop
        /// The body stays open until the reading task is cancelled.
        case openUntilCancelled
        /// The body stays open until `gate` opens, ignoring cancellation (a slow terminal).
        case openUntil(Gate)
    }

    private struct State {
        var connections: [Connection]
        var requests: [HTTPRequest] = []
        var hadDeadline: [Bool] = []
    }

    private let state: LockedValue<State>
    /// One element per `stream` call that returned or threw.
    let ends: AsyncStream<Void>
    private let endsContinuation: AsyncStream<Void>.Continuation

    init(_ connections: [Connection]) {
        state = LockedValue(State(connections: connections))
        (ends, endsContinuation) = AsyncStream.makeStream()
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var hadDeadline: [Bool] { state.withLock { $0.hadDeadline } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await stream(request) { head, body in
            HTTPResponse(statusCode: head.statusCode, headers: head.headers, body: try await body.collect(upTo: 1 << 20))
        }
    }

    func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        defer { endsContinuation.yield() }
        let connection = state.withLock { state -> Connection in
            state.requests.append(request)
            state.hadDeadline.append(RequestDeadline.current != nil)
            return state.connections.isEmpty ? .respond(status: 204, contentType: nil, chunks: []) : state.connections.removeFirst()
        }
        switch connection {
        case .fail(let error):
            throw error
        case .respond(let status, let contentType, let chunks, let end):
            var headers = HTTPHeaders()
            if let contentType { headers["Content-Type"] = contentType }
            let body = HTTPBody(ScriptedChunks(chunks: chunks.map { Array($0.utf8)[...] }, end: end), length: nil)
            return try await consume(HTTPResponseHead(statusCode: status, headers: headers, url: request.url), body)
        }
    }
}

/// The chunks of a scripted body, then its end.
struct ScriptedChunks: AsyncSequence, Sendable {
    let chunks: [ArraySlice<UInt8>]
    let end: EventStreamScript.BodyEnd

    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks, end: end) }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: [ArraySlice<UInt8>]
        let end: EventStreamScript.BodyEnd
        var ended = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if !chunks.isEmpty { return chunks.removeFirst() }
            guard !ended else { return nil }
            ended = true
            switch end {
            case .finish:
                return nil
            case .drop:
                throw TransportError(.connectionLost, message: "scripted drop")
            case .openUntilCancelled:
                let (never, continuation) = AsyncStream<Void>.makeStream()
                for await _ in never {} // Returns when the task is cancelled.
                withExtendedLifetime(continuation) {}
                throw CancellationError()
            case .openUntil(let gate):
                await gate.wait()
                return nil
            }
        }
    }
}

/// Something a test opens once; waiting for it ignores cancellation, as a slow terminal would.
final class Gate: Sendable {
    private let state = LockedValue<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
