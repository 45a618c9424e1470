#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// One round: `requests` requests from `concurrency` tasks through a ``SoakStack``.
///
/// Of every 20 requests, 14 are `GET /items?n` (revalidated with ETags after the first), 2 are
/// `PUT /items?n`, 2 `POST /orders` with an Idempotency-Key and 2 `POST /orders` without one.
/// The first three kinds are idempotent (the key makes the POST so) and must all succeed; the
/// last may fail (a 503 or a reset is not retried) but must never be sent twice.
struct SoakRound: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case get = "GET", put = "PUT", keyedPost = "POST with Idempotency-Key", unkeyedPost = "POST without key"

        init(index: Int) {
            switch index % 20 {
            case 0..<14: self = .get
            case 14, 15: self = .put
            case 16, 17: self = .keyedPost
            default: self = .unkeyedPost
            }
        }
    }

    /// What the round's requests came back with.
    struct Result: Sendable {
        var completed = 0
        /// Outcomes by kind: status code, or the error's kind for a thrown error.
        var outcomes: [Kind: [String: Int]] = [:]
        /// Idempotent requests that did not succeed, described (the first few).
        var idempotentFailures: [String] = []
        var idempotentFailureCount = 0
        var revalidated = 0
        var seconds = 0.0
    }

    let number: Int
    let requests: Int
    let concurrency: Int

    func run(_ stack: SoakStack, server: SoakServer) async -> Result {
        let next = LockedValue(0)
        let started = ContinuousClock.now
        var result = await withTaskGroup(of: Result.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var own = Result()
                    while case let index = next.withLock({ value -> Int in
                        defer { value += 1 }; return value
                    }),
                        index < requests
                    {
                        await send(index, through: stack, server: server, into: &own)
                    }
                    return own
                }
            }
            return await group.reduce(into: Result()) { total, part in
                total.completed += part.completed
                total.revalidated += part.revalidated
                total.idempotentFailureCount += part.idempotentFailureCount
                total.idempotentFailures += part.idempotentFailures.prefix(max(0, 5 - total.idempotentFailures.count))
                for (kind, counts) in part.outcomes { total.outcomes[kind, default: [:]].merge(counts, uniquingKeysWith: +) }
            }
        }
        let elapsed = ContinuousClock.now - started
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    private func send(_ index: Int, through stack: SoakStack, server: SoakServer, into result: inout Result) async {
        let kind = Kind(index: index)
        let order = "r\(number)-\(index)"
        var request: HTTPRequest
        switch kind {
        case .get, .put:
            request = HTTPRequest(method: kind == .get ? .get : .put, url: server.tls.url("/items?\(index % 50)"))
            if kind == .put { request.body = HTTPBody("{}") }
        case .keyedPost, .unkeyedPost:
            request = HTTPRequest(method: .post, url: server.tls.url("/orders"), body: HTTPBody(order))
            if kind == .keyedPost { request.headers["Idempotency-Key"] = order }
        }
        request.headers["Authorization"] = "Bearer \(await stack.auth.accessToken() ?? "")"
        let outcome: String
        var succeeded = false
        do {
            let response = try await stack.transport.send(request)
            outcome = String(response.statusCode)
            succeeded = (200..<300).contains(response.statusCode)
            if response.source == .revalidated { result.revalidated += 1 }
        } catch let error as TransportError {
            outcome = "\(error.kind)"
        } catch {
            outcome = "\(type(of: error))"
        }
        result.completed += 1
        result.outcomes[kind, default: [:]][outcome, default: 0] += 1
        if kind != .unkeyedPost, !succeeded {
            result.idempotentFailureCount += 1
            if result.idempotentFailures.count < 5 { result.idempotentFailures.append("\(kind.rawValue) #\(index): \(outcome)") }
        }
    }
}
