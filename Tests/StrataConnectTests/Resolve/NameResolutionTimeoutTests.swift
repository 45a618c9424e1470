import Dispatch
import Foundation
import Strata
import StrataConnect
import Testing
import TestSupport

/// A resolver that answers only when the test opens its gate: a DNS server that never replies.
private final class StalledResolver: HostNameResolver {
    let gate = DispatchSemaphore(value: 0)
    private let calls = LockedValue(0)
    var callCount: Int { calls.withLock { $0 } }

    func resolve(_ host: String, port: Int) throws(TransportError) -> [SocketAddress] {
        calls.withLock { $0 += 1 }
        gate.wait()
        throw TransportError(.cannotConnect, message: "released by the test")
    }
}

@Suite("The connect timeout covers name resolution")
struct NameResolutionTimeoutTests {
    @Test("a resolver that never answers ends in timedOut at the connect timeout, naming resolution")
    func stalledResolverTimesOut() throws {
        let resolver = StalledResolver()
        defer { resolver.gate.signal() }
        let error = #expect(throws: TransportError.self) {
            try POSIXSocketStream.connect(
                host: "stalled.example", port: 443,
                connectTimeout: TestTimeScale.scaled(.milliseconds(200)),
                idleTimeout: .seconds(5), resolver: resolver)
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.message.contains("resolving stalled.example") == true)
        #expect(resolver.callCount == 1)
    }

    @Test("an IP literal is never handed to the resolver")
    func literalsSkipResolution() throws {
        let resolver = StalledResolver()
        defer { resolver.gate.signal() }
        // Port 9 on loopback refuses at once; what matters is that no resolution was attempted.
        #expect(throws: TransportError.self) {
            try POSIXSocketStream.connect(
                host: "127.0.0.1", port: 9, connectTimeout: .seconds(5),
                idleTimeout: .seconds(5), resolver: resolver)
        }
        #expect(resolver.callCount == 0)
    }

    @Test("the system resolver still resolves localhost")
    func systemResolver() throws {
        let addresses = try SystemHostNameResolver().resolve("localhost", port: 443)
        #expect(addresses.count > 0)
    }
}
