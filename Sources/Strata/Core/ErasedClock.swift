/// A `Clock<Duration>` reduced to what layers need from it: the time elapsed since the clock was
/// handed over, and waiting. Every layer that waits or measures time takes `clock: some
/// Clock<Duration>` (default `ContinuousClock()`; tests pass `StrataTesting.TestClock`) and keeps
/// it as one of these, so that no layer's stored properties depend on the clock's instant type.
package struct ErasedClock: Sendable {
    private let elapsedTime: @Sendable () -> Duration
    private let sleepFor: @Sendable (Duration) async throws -> Void

    /// Erases `clock`; its current instant becomes the origin of ``elapsed()``.
    package init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsedTime = { origin.duration(to: clock.now) }
        sleepFor = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    /// The time since this value was created, on the clock.
    package func elapsed() -> Duration { elapsedTime() }

    /// Waits `duration` on the clock; throws `CancellationError` when the task is cancelled
    /// (for clocks that honour cancellation, as `ContinuousClock` does).
    package func sleep(for duration: Duration) async throws { try await sleepFor(duration) }
}
