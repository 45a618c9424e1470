/// When to start which connection attempt to a host with several addresses: RFC 8305 ("Happy
/// Eyeballs Version 2") §4 and §5, as pure policy. Time is passed in as the duration since the
/// race began, so the rules are tested without sockets or a clock.
///
/// - The addresses are tried in ``ordered(_:)``'s order: the system resolver's preference (RFC
///   6724) decides the first family, then the families alternate (§4, "First Address Family
///   Count" of 1), so a broken IPv6 path costs one attempt delay, not one per IPv6 address.
/// - The first attempt starts at once. The next one starts when the attempt delay has passed
///   since the last start with no connection yet, or at once when an attempt fails (§5); earlier
///   attempts stay in flight, and whichever connects first wins.
/// - When every attempt has failed the race is lost; the caller's connect timeout bounds it as a whole.
package struct ConnectionRace {
    /// RFC 8305 §8: the recommended Connection Attempt Delay.
    package static let defaultAttemptDelay = Duration.milliseconds(250)
    /// RFC 8305 §5: the attempt delay MUST NOT be less than 10 ms.
    package static let minimumAttemptDelay = Duration.milliseconds(10)

    /// What the caller does next.
    package enum Step: Equatable {
        /// Start the attempt to the address at this index of the ordered list.
        case start(Int)
        /// Wait for an attempt to finish, but no longer than until this moment (nil: no new
        /// attempt is due, wait only for those in flight).
        case wait(until: Duration?)
        /// Every attempt failed.
        case exhausted
    }

    /// How many addresses there are to try.
    package let count: Int
    /// How long the last attempt gets before the next starts beside it.
    package let attemptDelay: Duration
    private var nextIndex = 0
    private var inFlight: Set<Int> = []
    /// When the next attempt may start without a failure to trigger it.
    private var nextStart: Duration = .zero

    /// Creates a race over `count` ordered addresses; `attemptDelay` below 10 ms counts as 10 ms.
    package init(count: Int, attemptDelay: Duration) {
        self.count = count
        self.attemptDelay = max(attemptDelay, Self.minimumAttemptDelay)
    }

    /// What to do at `elapsed` (time since the race began).
    package mutating func next(at elapsed: Duration) -> Step {
        if nextIndex < count, inFlight.isEmpty || elapsed >= nextStart {
            let index = nextIndex
            nextIndex += 1
            inFlight.insert(index)
            nextStart = elapsed + attemptDelay
            return .start(index)
        }
        if inFlight.isEmpty { return .exhausted }
        return .wait(until: nextIndex < count ? nextStart : nil)
    }

    /// Attempt `index` failed at `elapsed`: the next address is tried at once (§5).
    package mutating func attemptFailed(_ index: Int, at elapsed: Duration) {
        inFlight.remove(index)
        nextStart = min(nextStart, elapsed)
    }

    /// How many attempts have started.
    package var started: Int { nextIndex }

    /// `addresses` in the order to try them: the first address's family first, then the
    /// families alternating, each family keeping the resolver's order (RFC 8305 §4).
    package static func ordered(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return [] }
        var preferred = addresses.filter { $0.family == first.family }[...]
        var others = addresses.filter { $0.family != first.family }[...]
        var result: [SocketAddress] = []
        result.reserveCapacity(addresses.count)
        while !preferred.isEmpty || !others.isEmpty {
            if let next = preferred.popFirst() { result.append(next) }
            if let next = others.popFirst() { result.append(next) }
        }
        return result
    }
}
