import Foundation
@testable import Strata

/// A terminal double that streams scripted answers: each request takes the next answer, whose
/// body is handed over chunk by chunk as a single-pass body, as a network terminal does. Records
/// the requests it got and how many bytes the consumer read of each body.
final class ScriptedStreamTransport: Transport, Sendable {
    struct Answer: Sendable {
        var statusCode: Int
        var headers: HTTPHeaders = [:]
        var chunks: [[UInt8]] = []

        static func status(_ statusCode: Int, headers: HTTPHeaders = [:], body: String = "") -> Answer {
            Answer(statusCode: statusCode, headers: headers, chunks: body.isEmpty ? [] : [Array(body.utf8)])
        }
    }

    private struct State {
        var answers: [Answer]
        var requests: [HTTPRequest] = []
        var bytesRead: [Int] = []
    }

    private let state: LockedValue<State>

    init(_ answers: [Answer]) { state = LockedValue(State(answers: answers)) }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    /// Bytes the consumer read of each response body, in order of the requests.
    var bytesRead: [Int] { state.withLock { $0.bytesRead } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await stream(request) { head, body in
            HTTPResponse(
                statusCode: head.statusCode, headers: head.headers, body: try await body.collect(upTo: 1 << 30),
                url: head.url)
        }
    }

    func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let (answer, index) = state.withLock { state -> (Answer, Int) in
            state.requests.append(request)
            state.bytesRead.append(0)
            let answer = state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
            return (answer, state.bytesRead.count - 1)
        }
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for chunk in answer.chunks { continuation.yield(chunk[...]) }
            continuation.finish()
        }
        let body = HTTPBody(chunks, length: nil).tapped { [state] chunk in
            state.withLock { $0.bytesRead[index] += chunk.count }
        }
        return try await consume(HTTPResponseHead(statusCode: answer.statusCode, headers: answer.headers, url: request.url), body)
    }
}
