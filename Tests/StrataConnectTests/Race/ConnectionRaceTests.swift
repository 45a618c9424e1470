#if canImport(Glibc)
import Glibc
#endif
import StrataConnect
import Testing

@Suite("Happy eyeballs: the racing policy (RFC 8305), with time passed in")
struct ConnectionRaceTests {
    static func address(_ literal: String) -> SocketAddress {
        try! SystemHostNameResolver.addresses(of: literal, port: 443, numericOnly: true)[0]
    }

    @Test("the families alternate, starting with the resolver's first, each keeping its own order")
    func ordering() {
        let resolved = ["2001:db8::1", "2001:db8::2", "2001:db8::3", "192.0.2.1", "192.0.2.2"].map(Self.address)
        #expect(
            ConnectionRace.ordered(resolved).map(\.presentation)
                == ["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2", "2001:db8::3"])
        let ipv4First = ["192.0.2.1", "2001:db8::1", "192.0.2.2"].map(Self.address)
        #expect(ConnectionRace.ordered(ipv4First).map(\.presentation) == ["192.0.2.1", "2001:db8::1", "192.0.2.2"])
        #expect(ConnectionRace.ordered([]).isEmpty)
    }

    @Test("the first attempt starts at once and the next only after the attempt delay, while the first still runs")
    func headStart() {
        var race = ConnectionRace(count: 3, attemptDelay: .milliseconds(250))
        #expect(race.next(at: .zero) == .start(0))
        #expect(race.next(at: .zero) == .wait(until: .milliseconds(250)))
        #expect(race.next(at: .milliseconds(249)) == .wait(until: .milliseconds(250)))
        #expect(race.next(at: .milliseconds(250)) == .start(1))
        #expect(race.next(at: .milliseconds(300)) == .wait(until: .milliseconds(500)))
        #expect(race.next(at: .milliseconds(500)) == .start(2))
        // Every address started: wait for those in flight, with no deadline of the race's own.
        #expect(race.next(at: .milliseconds(500)) == .wait(until: nil))
    }

    @Test("a failed attempt starts the next address at once, without waiting out the delay")
    func failureStartsNext() {
        var race = ConnectionRace(count: 3, attemptDelay: .milliseconds(250))
        #expect(race.next(at: .zero) == .start(0))
        race.attemptFailed(0, at: .milliseconds(3))
        #expect(race.next(at: .milliseconds(3)) == .start(1))
        // Attempt 1 still runs, attempt 2 waits its turn...
        #expect(race.next(at: .milliseconds(10)) == .wait(until: .milliseconds(253)))
        // ...unless attempt 1 fails too.
        race.attemptFailed(1, at: .milliseconds(20))
        #expect(race.next(at: .milliseconds(20)) == .start(2))
    }

    @Test("a failure while a later attempt runs still brings the next one forward")
    func failureOfAnEarlierAttempt() {
        var race = ConnectionRace(count: 3, attemptDelay: .milliseconds(250))
        #expect(race.next(at: .zero) == .start(0))
        #expect(race.next(at: .milliseconds(250)) == .start(1))
        race.attemptFailed(0, at: .milliseconds(260))
        #expect(race.next(at: .milliseconds(260)) == .start(2))
    }

    @Test("the race is lost only when every started attempt has failed")
    func exhausted() {
        var race = ConnectionRace(count: 2, attemptDelay: .milliseconds(250))
        #expect(race.next(at: .zero) == .start(0))
        #expect(race.next(at: .milliseconds(250)) == .start(1))
        race.attemptFailed(1, at: .milliseconds(251))
        #expect(race.next(at: .milliseconds(251)) == .wait(until: nil))
        race.attemptFailed(0, at: .milliseconds(300))
        #expect(race.next(at: .milliseconds(300)) == .exhausted)
        var empty = ConnectionRace(count: 0, attemptDelay: .milliseconds(250))
        #expect(empty.next(at: .zero) == .exhausted)
    }

    @Test("an attempt delay under the RFC's 10 ms floor counts as 10 ms")
    func minimumDelay() {
        var race = ConnectionRace(count: 2, attemptDelay: .zero)
        #expect(race.attemptDelay == .milliseconds(10))
        #expect(race.next(at: .zero) == .start(0))
        #expect(race.next(at: .milliseconds(9)) == .wait(until: .milliseconds(10)))
        #expect(race.next(at: .milliseconds(10)) == .start(1))
    }

    @Test("addresses print in their usual text form")
    func presentation() {
        #expect(Self.address("::1").presentation == "::1")
        #expect(Self.address("127.0.0.1").presentation == "127.0.0.1")
        #expect(Self.address("2001:db8::a").family == AF_INET6)
    }
}
