import Strata
import Testing

@testable import StrataResilience

@Suite("A circuit's state machine, driven by time passed in")
struct CircuitBreakerCircuitTests {
    typealias Circuit = CircuitBreakerCircuit

    private func policy(
        ratio: Double = 0.5, minimum: Int = 4, window: CircuitBreakerPolicy.Window = .count(10),
        breakDuration: Duration = .seconds(5), probes: Int = 1
    ) -> CircuitBreakerPolicy {
        CircuitBreakerPolicy(
            failureRatio: ratio, minimumThroughput: minimum, window: window, breakDuration: breakDuration,
            halfOpenProbes: probes)
    }

    /// Admits one call at `now` and reports `outcome` for it.
    @discardableResult
    private func call(_ circuit: inout Circuit, _ outcome: Circuit.Outcome, at now: Duration = .zero) -> Circuit.Transition? {
        guard case .admitted(let ticket) = circuit.admit(now: now).admission else {
            Issue.record("the circuit refused a call at \(now)")
            return nil
        }
        return circuit.record(outcome, ticket: ticket, now: now)
    }

    @Test("below the minimum number of calls, even all failures keep it closed")
    func minimumThroughput() {
        var circuit = Circuit(policy: policy(minimum: 4))
        for _ in 0..<3 { #expect(call(&circuit, .failure) == nil) }
        #expect(circuit.phase == .closed)
    }

    @Test("it opens when the failure ratio over the window reaches the threshold")
    func opensAtThreshold() {
        var circuit = Circuit(policy: policy(ratio: 0.5, minimum: 4))
        call(&circuit, .success)
        call(&circuit, .success)
        call(&circuit, .failure)
        #expect(call(&circuit, .failure, at: .seconds(1)) == .opened(calls: 4, failures: 2))
        #expect(circuit.phase == .open(until: .seconds(6)))
    }

    @Test("a success never opens it, and a ratio below the threshold keeps it closed")
    func belowThreshold() {
        var circuit = Circuit(policy: policy(ratio: 0.5, minimum: 4))
        for outcome: Circuit.Outcome in [.success, .success, .success, .failure, .success] {
            #expect(call(&circuit, outcome) == nil)
        }
        #expect(circuit.phase == .closed)
    }

    @Test("an open circuit refuses calls until the break passes, saying how long is left")
    func openRefuses() {
        var circuit = Circuit(policy: policy(minimum: 1, breakDuration: .seconds(5)))
        call(&circuit, .failure, at: .seconds(10))
        #expect(circuit.admit(now: .seconds(12)).admission == .rejected(retryAfter: .seconds(3)))
        #expect(circuit.admit(now: .milliseconds(14_999)).admission == .rejected(retryAfter: .milliseconds(1)))
    }

    @Test("after the break it turns half-open and lets exactly the probes through")
    func halfOpenProbes() {
        var circuit = Circuit(policy: policy(minimum: 1, probes: 2))
        call(&circuit, .failure)
        let first = circuit.admit(now: .seconds(5))
        #expect(first.transition == .halfOpened)
        guard case .admitted(let ticket) = first.admission else { return #expect(Bool(false)) }
        #expect(ticket.isProbe)
        #expect(circuit.admit(now: .seconds(5)).admission != .rejected(retryAfter: .zero))
        #expect(circuit.admit(now: .seconds(5)).admission == .rejected(retryAfter: .zero))
        #expect(circuit.phase == .halfOpen(inFlight: 2, succeeded: 0))
    }

    @Test("it closes once every probe succeeded, with a fresh window")
    func probesClose() {
        var circuit = Circuit(policy: policy(minimum: 2, probes: 2))
        call(&circuit, .failure)
        call(&circuit, .failure)
        guard case .admitted(let a) = circuit.admit(now: .seconds(5)).admission,
            case .admitted(let b) = circuit.admit(now: .seconds(5)).admission
        else { return #expect(Bool(false)) }
        #expect(circuit.record(.success, ticket: a, now: .seconds(6)) == nil)
        #expect(circuit.record(.success, ticket: b, now: .seconds(6)) == .closed)
        #expect(circuit.phase == .closed)
        // The failures before the break are gone: one more failure is below the minimum.
        #expect(call(&circuit, .failure, at: .seconds(6)) == nil)
    }

    @Test("a failed probe opens it again for another break")
    func probeFailureReopens() {
        var circuit = Circuit(policy: policy(minimum: 1, breakDuration: .seconds(5)))
        call(&circuit, .failure)
        #expect(call(&circuit, .failure, at: .seconds(5)) == .reopened)
        #expect(circuit.phase == .open(until: .seconds(10)))
    }

    @Test("a cancelled probe frees its place without deciding anything")
    func ignoredProbe() {
        var circuit = Circuit(policy: policy(minimum: 1))
        call(&circuit, .failure)
        #expect(call(&circuit, .ignored, at: .seconds(5)) == nil)
        #expect(circuit.phase == .halfOpen(inFlight: 0, succeeded: 0))
        #expect(call(&circuit, .success, at: .seconds(5)) == .closed)
    }

    @Test("a call admitted before the circuit opened cannot close it or take a probe's place")
    func staleTicketIgnored() {
        var circuit = Circuit(policy: policy(minimum: 1))
        guard case .admitted(let slow) = circuit.admit(now: .zero).admission else { return #expect(Bool(false)) }
        call(&circuit, .failure)
        _ = circuit.admit(now: .seconds(5)) // half-open, its one probe out
        #expect(circuit.record(.success, ticket: slow, now: .seconds(6)) == nil)
        #expect(circuit.phase == .halfOpen(inFlight: 1, succeeded: 0))
    }

    @Test("a time window forgets failures older than its duration")
    func timeWindowRollsOver() {
        var circuit = Circuit(policy: policy(ratio: 0.5, minimum: 4, window: .time(.seconds(10))))
        for _ in 0..<3 { call(&circuit, .failure, at: .zero) }
        // Ten seconds later those three have left the window: three new calls are below the minimum.
        for second in 10..<13 { #expect(call(&circuit, .failure, at: .seconds(second)) == nil) }
        #expect(circuit.phase == .closed)
        #expect(call(&circuit, .failure, at: .seconds(13)) == .opened(calls: 4, failures: 4))
    }

    @Test("a time window keeps failures within its duration")
    func timeWindowKeeps() {
        var circuit = Circuit(policy: policy(ratio: 0.5, minimum: 4, window: .time(.seconds(10))))
        for second in 0..<3 { call(&circuit, .failure, at: .seconds(second)) }
        #expect(call(&circuit, .failure, at: .milliseconds(9_500)) == .opened(calls: 4, failures: 4))
    }

    @Test("a count window keeps only the last calls")
    func countWindowRollsOver() {
        var circuit = Circuit(policy: policy(ratio: 0.5, minimum: 4, window: .count(4)))
        call(&circuit, .failure)
        for _ in 0..<4 { call(&circuit, .success) }
        // The failure left the window; 1 of the last 4 fails, then 2 of 4.
        #expect(call(&circuit, .failure) == nil)
        #expect(call(&circuit, .failure) == .opened(calls: 4, failures: 2))
    }

    @Test("a closed circuit with no failures is at rest; an open one never is")
    func atRest() {
        var circuit = Circuit(policy: policy(minimum: 1))
        #expect(circuit.isAtRest(now: .zero))
        call(&circuit, .failure)
        #expect(!circuit.isAtRest(now: .zero))
    }
}
