import Strata

/// The events of the job a pooled connection is running, collected on the connection's thread
/// and handed to the caller's task in the job's report (task-local observers are not visible on
/// that thread). Collects nothing when the caller has no observer, and outside any job.
final class JobEvents: Sendable {
    private let events = LockedValue<[ConnectionEvent]?>(nil)

    /// Starts a job's collection; `collecting` false drops everything until the next job.
    func begin(collecting: Bool) {
        events.withLock { $0 = collecting ? [] : nil }
    }

    /// Records `event` if the current job collects; otherwise it is never built.
    func record(_ event: @autoclosure () -> ConnectionEvent) {
        events.withLock { events in events?.append(event()) }
    }

    /// The job's events, in order; collection stops until the next ``begin(collecting:)``.
    func finish() -> [ConnectionEvent] {
        events.withLock { $0.take() ?? [] }
    }
}
