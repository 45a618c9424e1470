@testable import Strata
import Testing

@Suite("ReconnectPolicy decides, without a network, what an EventSource does after a connection")
struct ReconnectPolicyTests {
    static let refused = EventSourceConnectionEnd.failedToConnect(TransportError(.cannotConnect))

    static func wait(_ decision: ReconnectDecision) -> Duration? {
        if case .reconnect(let wait) = decision { return wait }
        return nil
    }

    @Test("failed attempts in a row double the wait from the server's retry:, capped at maxDelay")
    func backoff() {
        let policy = ReconnectPolicy(delay: .seconds(1), maxDelay: .seconds(10), maxFailedAttempts: 10)
        let waits = (1...6).map { Self.wait(policy.decision(after: Self.refused, failedAttempts: $0, serverDelay: nil)) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
        let fromServer = policy.decision(after: Self.refused, failedAttempts: 2, serverDelay: .milliseconds(300))
        #expect(Self.wait(fromServer) == .milliseconds(600))
    }

    @Test("a zero delay stays zero however many attempts failed")
    func zeroDelay() {
        let policy = ReconnectPolicy(delay: .zero, maxFailedAttempts: .max)
        #expect(Self.wait(policy.decision(after: Self.refused, failedAttempts: 1_000_000, serverDelay: nil)) == .zero)
    }

    @Test("the attempt that reaches maxFailedAttempts gives up with reconnectFailed")
    func givesUp() {
        let policy = ReconnectPolicy(maxFailedAttempts: 2)
        #expect(Self.wait(policy.decision(after: Self.refused, failedAttempts: 1, serverDelay: nil)) == .seconds(3))
        guard case .fail(let error) = policy.decision(after: Self.refused, failedAttempts: 2, serverDelay: nil),
            case .reconnectFailed(let attempts, _)? = error as? ServerSentEventError
        else {
            Issue.record("did not give up")
            return
        }
        #expect(attempts == 2)
    }

    @Test("a 204 finishes, under any policy")
    func noContent() {
        for policy in [ReconnectPolicy(), .never] {
            guard case .finish = policy.decision(after: .noContent, failedAttempts: 0, serverDelay: nil) else {
                Issue.record("a 204 did not finish")
                return
            }
        }
    }

    @Test("a clean end reconnects after the server's retry:, or finishes under never")
    func cleanEnd() {
        #expect(
            Self.wait(ReconnectPolicy().decision(after: .ended(delivered: true), failedAttempts: 0, serverDelay: .seconds(9)))
                == .seconds(9))
        guard case .finish = ReconnectPolicy.never.decision(after: .ended(delivered: true), failedAttempts: 0, serverDelay: nil) else {
            Issue.record("never reconnected")
            return
        }
    }

    @Test("a server's retry: 0 is read as 100 ms: a stream that closes at once cannot make the reader spin")
    func serverDelayFloor() {
        let wait = Self.wait(ReconnectPolicy().decision(after: .ended(delivered: true), failedAttempts: 0, serverDelay: .zero))
        #expect(wait == ReconnectPolicy.minimumServerDelay)
    }

    @Test("streams that end without an event count as failed attempts: the wait doubles, and never gives up")
    func emptyStreamsBackOff() {
        let policy = ReconnectPolicy(delay: .seconds(1), maxDelay: .seconds(10), maxFailedAttempts: 2)
        let waits = (1...5).map { Self.wait(policy.decision(after: .ended(delivered: false), failedAttempts: $0, serverDelay: nil)) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10)])
        #expect(EventSourceConnectionEnd.ended(delivered: false).isFailedAttempt)
        #expect(!EventSourceConnectionEnd.ended(delivered: true).isFailedAttempt)
    }

    @Test("a drop before the first event backs off and gives up like a failed connection; after events it reconnects at once")
    func dropsBeforeEvents() {
        let lost = TransportError(.connectionLost)
        let policy = ReconnectPolicy(delay: .seconds(1), maxFailedAttempts: 2)
        #expect(Self.wait(policy.decision(after: .dropped(lost, delivered: true), failedAttempts: 0, serverDelay: nil)) == .seconds(1))
        #expect(Self.wait(policy.decision(after: .dropped(lost, delivered: false), failedAttempts: 1, serverDelay: nil)) == .seconds(1))
        guard case .fail(let error) = policy.decision(after: .dropped(lost, delivered: false), failedAttempts: 2, serverDelay: nil),
            case .reconnectFailed? = error as? ServerSentEventError
        else {
            Issue.record("did not give up")
            return
        }
    }

    @Test("a body that fails for a reason that is not transient (corrupt, too expanded) ends the stream: the same body would fail again")
    func permanentDropFails() {
        let corrupt = TransportError(.invalidResponse, message: "the gzip body is corrupt")
        guard
            case .fail(let error) = ReconnectPolicy().decision(
                after: .dropped(corrupt, delivered: true), failedAttempts: 0,
                serverDelay: nil)
        else {
            Issue.record("reconnected after a corrupt body")
            return
        }
        #expect((error as? TransportError)?.kind == .invalidResponse)
    }
}
