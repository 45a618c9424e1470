import Strata

/// One group's rate-limit state, on the layer's clock: until when a server closed the window,
/// and the client limit's next token. A value with pure decisions, tested without a transport.
struct RateLimitWindow: Sendable, Equatable {
    /// What to do with a request that arrives now.
    enum Admission: Sendable, Equatable {
        /// Send it at once.
        case proceed
        /// Wait this long, then ask again (the window may have been closed further meanwhile).
        case wait(Duration, source: RateLimitSource)
        /// Fail it at once: the window reopens in `reopensIn`, beyond what the request may wait.
        case reject(reopensIn: Duration, source: RateLimitSource, limit: RateLimitedError.Limit)
    }

    /// The instant the server's window reopens; at or before now when it is open.
    private(set) var closedUntil: Duration = .zero
    /// The field that closed the window last.
    private(set) var closedBy: RateLimitSource?
    /// The client limit's theoretical arrival time (GCRA, ITU-T I.371): the instant the bucket
    /// would be empty again if no more requests came; `nil` before the first request.
    private(set) var nextTokenAt: Duration?

    /// Closes the window for `requested` (at most `maxHold`) from `now`, unless it is already
    /// closed for longer: a late response (sent before the window closed, carrying older
    /// numbers) never reopens it early.
    ///
    /// - Returns: The hold applied, or `nil` when the window was already closed at least as long.
    mutating func close(for requested: Duration, source: RateLimitSource, now: Duration, maxHold: Duration) -> Duration? {
        let applied = min(requested, maxHold)
        guard applied > .zero, now + applied > closedUntil else { return nil }
        closedUntil = now + applied
        closedBy = source
        return applied
    }

    /// Decides on a request that arrives at `now`.
    ///
    /// The rules, in order:
    /// 1. The request may go when both the server's window is open and (with `clientLimit`) a
    ///    token is due: the later of the two, the token reserved at the reopening.
    /// 2. It may go now → ``Admission/proceed`` (its token taken).
    /// 3. The wait is longer than `maxWait` → ``Admission/reject(reopensIn:source:limit:)``,
    ///    nothing reserved.
    /// 4. The wait would not end before the deadline (`timeLeft`) → reject, nothing reserved.
    /// 5. Otherwise → ``Admission/wait(_:source:)``, its token reserved.
    ///
    /// - Parameters:
    ///   - now: The current instant on the layer's clock.
    ///   - clientLimit: The client's own rate, or `nil` (also after a wait: the token is
    ///     reserved once).
    ///   - maxWait: The longest the request may still wait.
    ///   - timeLeft: The time before the request's deadline, or `nil` for none.
    mutating func admit(
        now: Duration, clientLimit: RateLimitPolicy.ClientLimit?, maxWait: Duration, timeLeft: Duration?
    ) -> Admission {
        let serverOpensAt = max(now, closedUntil)
        var sendsAt = serverOpensAt
        var source = closedBy ?? .clientLimit
        var reservation: Duration?
        if let clientLimit {
            // GCRA: a token is due `interval` after the previous one, and up to `burst - 1`
            // intervals early (the bucket's depth).
            let interval = clientLimit.interval
            let theoretical = max(nextTokenAt ?? serverOpensAt, serverOpensAt)
            let due = max(serverOpensAt, theoretical - interval * (clientLimit.effectiveBurst - 1))
            if due > serverOpensAt { source = .clientLimit }
            sendsAt = due
            reservation = theoretical + interval
        }
        let wait = sendsAt - now
        guard wait > .zero else {
            nextTokenAt = reservation ?? nextTokenAt
            return .proceed
        }
        // Waiting longer than allowed helps nobody: fail now, and let the caller decide.
        guard wait <= maxWait else { return .reject(reopensIn: wait, source: source, limit: .maxWait(maxWait)) }
        // The wait and at least a moment for the send must fit before the deadline.
        if let timeLeft, wait >= timeLeft { return .reject(reopensIn: wait, source: source, limit: .deadline(timeLeft: timeLeft)) }
        nextTokenAt = reservation ?? nextTokenAt
        return .wait(wait, source: source)
    }

    /// Whether dropping this state loses nothing: the window is open and the bucket full.
    func isAtRest(now: Duration) -> Bool {
        closedUntil <= now && (nextTokenAt ?? .zero) <= now
    }
}
