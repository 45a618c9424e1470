#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

/// Test doubles for the retry tests: injected sleep, randomness and transports. Nothing here
/// waits for real time.
enum RetryFixtures {
    static let baseURL = URL(string: "https://api.example.com")!

    static func request(_ method: HTTPMethod = .get, path: String = "/todos",
                        headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// An environment whose sleep returns at once (after checking cancellation), with a
    /// scripted random source and a fixed clock.
    static func environment(random: ScriptedRandom = ScriptedRandom([]),
                            now: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> RetryEnvironment {
        RetryEnvironment(now: { now }, sleep: { _ in try Task.checkCancellation() }, random: { random.next() })
    }

    /// Collects the events a transport reports.
    final class EventLog: Sendable {
        private let events = LockedValue<[RetryEvent]>([])
        var all: [RetryEvent] { events.withLock { $0 } }
        var delays: [Double] { all.map(\.delay) }
        func record(_ event: RetryEvent) { events.withLock { $0.append(event) } }
    }

    /// Hands out scripted numbers in order; records an issue if the script runs out.
    final class ScriptedRandom: Sendable {
        private let values: LockedValue<[Double]>
        init(_ values: [Double]) { self.values = LockedValue(values) }
        var remaining: Int { values.withLock { $0.count } }
        func next() -> Double {
            let value = values.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let value else {
                Issue.record("the scripted random source ran out")
                return 0
            }
            return value
        }
    }

    /// Seeded uniform doubles in `0..<1`, for properties that must hold for any draw.
    struct SeededRandom {
        private var generator: SeededGenerator
        init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
        mutating func next() -> Double { generator.nextUnitDouble() }
    }

    /// A transport built from a closure, counting its sends.
    final class ClosureTransport: Transport {
        private let sends = LockedValue(0)
        private let handler: @Sendable (URLRequest) async throws -> HTTPResponse
        init(_ handler: @escaping @Sendable (URLRequest) async throws -> HTTPResponse) { self.handler = handler }
        var sendCount: Int { sends.withLock { $0 } }
        func send(_ request: URLRequest) async throws -> HTTPResponse {
            sends.withLock { $0 += 1 }
            return try await handler(request)
        }
    }

    /// Suspends until the calling task is cancelled, like `Task.sleep` with an endless duration,
    /// and tells the test when a task has started waiting.
    final class SleepUntilCancelled: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Void, any Error>)
            case cancelled
        }

        private let state = LockedValue(State.idle)
        private let started: AsyncStream<Void>
        private let startedContinuation: AsyncStream<Void>.Continuation

        init() { (started, startedContinuation) = AsyncStream.makeStream() }

        /// Returns once a task is waiting in ``sleep(_:)``.
        func untilSleeping() async {
            for await _ in started { return }
        }

        func sleep(_ duration: Duration) async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let alreadyCancelled = state.withLock { state in
                        if case .cancelled = state { return true }
                        state = .waiting(continuation)
                        return false
                    }
                    if alreadyCancelled { continuation.resume(throwing: CancellationError()) }
                    startedContinuation.yield()
                }
            } onCancel: {
                let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    defer { state = .cancelled }
                    if case .waiting(let continuation) = state { return continuation }
                    return nil
                }
                waiting?.resume(throwing: CancellationError())
            }
        }
    }
}
