/// One circuit's state machine: closed, open until an instant, or half-open with probes out.
///
/// A pure value: the layer passes in the time on its clock and acts on what comes back, so
/// every transition is tested without a clock or a network. Each transition starts a new
/// *generation*; a call admitted in an earlier one reports into nothing, so a slow call that
/// began before the circuit opened cannot close it, and one that began while it was closed
/// cannot take a probe's place.
package struct CircuitBreakerCircuit: Sendable {
    /// Where the circuit is.
    package enum Phase: Sendable, Equatable {
        /// Calls go through and are counted.
        case closed
        /// Calls fail at once until `until`.
        case open(until: Duration)
        /// `inFlight` probes are out and `succeeded` have succeeded.
        case halfOpen(inFlight: Int, succeeded: Int)
    }

    /// What the circuit says to a call about to be made.
    package enum Admission: Sendable, Equatable {
        /// The call may go; it reports its outcome with this ticket.
        case admitted(Ticket)
        /// The call fails at once; the circuit may let calls through after `retryAfter` (zero
        /// while half-open probes are out).
        case rejected(retryAfter: Duration)
    }

    /// What an admitted call reports its outcome with.
    package struct Ticket: Sendable, Equatable {
        let generation: UInt64
        /// Whether the call is a half-open probe.
        package let isProbe: Bool
    }

    /// A change of phase, reported as an event.
    package enum Transition: Sendable, Equatable {
        /// Closed → open: `failures` of `calls` in the window failed.
        case opened(calls: Int, failures: Int)
        /// Open → half-open: the break passed.
        case halfOpened
        /// Half-open → closed: every probe succeeded.
        case closed
        /// Half-open → open: a probe failed.
        case reopened
    }

    /// How a call ended, as the policy classified it.
    package enum Outcome: Sendable, Equatable {
        case success
        case failure
        /// Counts as nothing (a cancelled call): only frees a probe's place.
        case ignored
    }

    package private(set) var phase = Phase.closed
    private var window: CircuitBreakerWindow
    private var generation: UInt64 = 0
    private let policy: CircuitBreakerPolicy

    /// A closed circuit with an empty window.
    package init(policy: CircuitBreakerPolicy) {
        self.policy = policy
        window = CircuitBreakerWindow(policy.window)
    }

    /// Whether dropping this circuit loses nothing: closed, with no failure in its window.
    package func isAtRest(now: Duration) -> Bool {
        phase == .closed && window.totals(now: now).failures == 0
    }

    /// Admits or rejects a call at `now`; an open circuit whose break has passed turns half-open
    /// first (reported in `transition`).
    package mutating func admit(now: Duration) -> (admission: Admission, transition: Transition?) {
        var transition: Transition?
        if case .open(let until) = phase {
            guard now >= until else { return (.rejected(retryAfter: until - now), nil) }
            enter(.halfOpen(inFlight: 0, succeeded: 0))
            transition = .halfOpened
        }
        switch phase {
        case .closed:
            return (.admitted(Ticket(generation: generation, isProbe: false)), transition)
        case .halfOpen(let inFlight, let succeeded):
            // Probes already out (or enough succeeded, awaiting the last): wait for their verdict.
            guard inFlight + succeeded < policy.halfOpenProbes else { return (.rejected(retryAfter: .zero), transition) }
            phase = .halfOpen(inFlight: inFlight + 1, succeeded: succeeded)
            return (.admitted(Ticket(generation: generation, isProbe: true)), transition)
        case .open:
            preconditionFailure("an open circuit past its break turned half-open above")
        }
    }

    /// Reports the outcome of a call admitted with `ticket`, ended at `now`.
    ///
    /// - Returns: The transition the outcome caused, if any.
    package mutating func record(_ outcome: Outcome, ticket: Ticket, now: Duration) -> Transition? {
        // Admitted before the last transition: the circuit it was counted for is gone.
        guard ticket.generation == generation else { return nil }
        switch phase {
        case .closed:
            guard outcome != .ignored else { return nil }
            window.record(failed: outcome == .failure, now: now)
            guard outcome == .failure else { return nil }
            let (calls, failures) = window.totals(now: now)
            guard calls >= policy.minimumThroughput, Double(failures) >= policy.failureRatio * Double(calls) else { return nil }
            enter(.open(until: now + policy.breakDuration))
            return .opened(calls: calls, failures: failures)
        case .halfOpen(let inFlight, let succeeded):
            switch outcome {
            case .ignored:
                phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded)
                return nil
            case .failure:
                enter(.open(until: now + policy.breakDuration))
                return .reopened
            case .success:
                guard succeeded + 1 >= policy.halfOpenProbes else {
                    phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded + 1)
                    return nil
                }
                enter(.closed)
                return .closed
            }
        case .open:
            // Only a ticket of an earlier generation can report while open, and it was refused above.
            return nil
        }
    }

    /// Moves to `phase` as a new generation, with an empty window.
    private mutating func enter(_ phase: Phase) {
        self.phase = phase
        generation &+= 1
        window = CircuitBreakerWindow(policy.window)
    }
}
