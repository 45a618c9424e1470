#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

/// Test doubles for the retry tests: injected clocks and randomness. Nothing here waits for real
/// time.
enum RetryFixtures {
    static let baseURL = URL(string: "https://api.example.com")!

    static func request(
        _ method: HTTPMethod = .get, path: String = "/todos",
        headers: [String: String] = [:]
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, url: baseURL.appendingPathComponent(path),
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// A retrying transport on a test clock (sleeps return at once and are recorded), with a
    /// scripted random source.
    static func retrying(
        _ inner: any Transport, policy: RetryPolicy = RetryPolicy(budget: nil),
        clock: TestClock = TestClock(),
        random: ScriptedRandom = ScriptedRandom([])
    ) -> RetryTransport {
        RetryTransport(inner: inner, policy: policy, clock: clock, random: { random.next() })
    }

    /// The delays of the retries `recorder` saw, in order.
    static func delays(_ recorder: RecordingObserver) -> [Duration] {
        recorder.events(RetryEvent.self).map { event in
            guard case .scheduled(_, let delay, _, _, _, _) = event else { return .zero }
            return delay
        }
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

/// A clock whose sleeps wait until the sleeping task is cancelled, and that tells the test when
/// a task has started sleeping: for cancellation during a backoff.
final class SleepsUntilCancelledClock: Clock, Sendable {
    let sleeper = RetryFixtures.SleepUntilCancelled()
    var now: ContinuousClock.Instant { .now }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        try await sleeper.sleep(deadline - .now)
    }
}

/// A clock whose sleeps return at once even when the task was cancelled, as a careless custom
/// clock might: the transport must still not send again after a cancel.
struct CancellationIgnoringClock: Clock {
    var now: ContinuousClock.Instant { .now }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {}
}
