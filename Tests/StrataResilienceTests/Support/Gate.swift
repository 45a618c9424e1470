import Strata

/// A barrier for test doubles: calls to ``wait()`` suspend until the test ``open()``s the gate,
/// and ``waitForWaiters(_:)`` lets the test know (without sleeping) that the code under test has
/// reached it.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    /// How many calls reached ``wait()`` so far.
    var arrivals: Int { state.withLock { $0.arrivals } }

    /// Suspends until the gate is open (returns at once when it already is).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (pass, arrived) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.arrivals += 1
                let arrived = state.arrivalWaiters.filter { $0.count <= state.arrivals }.map(\.continuation)
                state.arrivalWaiters.removeAll { $0.count <= state.arrivals }
                if state.isOpen { return (true, arrived) }
                state.waiters.append(continuation)
                return (false, arrived)
            }
            for waiter in arrived { waiter.resume() }
            if pass { continuation.resume() }
        }
    }

    /// Opens the gate: every waiting call and every later one passes.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until `count` calls have reached ``wait()``.
    func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.arrivals < count else { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
