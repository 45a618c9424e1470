import Foundation

/// The clock, sleep and randomness a ``RetryTransport`` uses, injectable so that tests run in
/// microseconds and assert exact delays.
///
/// ```swift
/// // A test: record delays instead of waiting, and always draw the middle of the jitter range.
/// let delays = LockedValue<[Duration]>([])
/// let environment = RetryEnvironment(sleep: { delay in delays.withLock { $0.append(delay) } },
///                                    random: { 0.5 })
/// ```
public struct RetryEnvironment: Sendable {
    /// The current time, for `Retry-After` HTTP-dates.
    public var now: @Sendable () -> Date
    /// Waits for a duration. It must throw `CancellationError` promptly when the calling task is
    /// cancelled (as `Task.sleep(for:)` does); the transport also checks cancellation before
    /// each send.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A number in `0..<1` for jitter. Values outside are clamped.
    public var random: @Sendable () -> Double

    /// Creates an environment; each default is the real thing.
    ///
    /// - Parameters:
    ///   - now: The current time. Default: `Date()`.
    ///   - sleep: A cancellation-aware wait. Default: `Task.sleep(for:)`.
    ///   - random: Uniform numbers in `0..<1`. Default: the system random generator.
    public init(now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.now = now
        self.sleep = sleep
        self.random = random
    }

    /// The real clock, `Task.sleep(for:)` and the system random generator.
    public static let live = RetryEnvironment()
}
