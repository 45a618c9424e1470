import Strata
@testable import StrataRedis
import Testing

@Suite("Slot map refreshes run one at a time")
struct RedisTopologyRefreshTests {
    /// A door that discoveries wait at until the test opens it.
    final class Door: Sendable {
        private let state = LockedValue<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    private let node = RedisNodeAddress(host: "127.0.0.1", port: 7000)!

    @Test("refreshes asked for while one runs join it: ten requests, one discovery")
    func coalesced() async throws {
        let door = Door()
        let discoveries = LockedValue(0)
        let map = RedisSlotMap([(0...16383, node)])
        let refresh = RedisTopologyRefresh {
            discoveries.withLock { $0 += 1 }
            await door.pass()
            return .success(map)
        }
        for _ in 0..<10 { refresh.refreshInBackground() }
        door.open()
        #expect(try await refresh.map() == map)
        #expect(discoveries.withLock { $0 } == 1)
    }

    @Test("a failed refresh keeps the known map, and the next refresh asks again")
    func failureKeepsMap() async throws {
        let moved = RedisNodeAddress(host: "127.0.0.1", port: 7001)!
        let outcomes = LockedValue<[Result<RedisSlotMap, RedisClientError>]>([
            .success(RedisSlotMap([(0...16383, node)])),
            .failure(.clusterUnreachable(tried: 1, lastFailure: "down")),
            .success(RedisSlotMap([(0...16383, moved)])),
        ])
        let refresh = RedisTopologyRefresh { outcomes.withLock { $0.removeFirst() } }
        let first = try await refresh.map()
        #expect(await refresh.refresh() == .failure(.clusterUnreachable(tried: 1, lastFailure: "down")))
        #expect(try await refresh.map() == first)
        #expect(try await refresh.refresh().get().node(for: 0) == moved)
        #expect(try await refresh.map().node(for: 0) == moved)
    }

    @Test("a MOVED assignment applies at once to the known map")
    func assignment() async throws {
        let refresh = RedisTopologyRefresh { [node] in .success(RedisSlotMap([(0...16383, node)])) }
        _ = try await refresh.map()
        let other = RedisNodeAddress(host: "127.0.0.1", port: 7001)!
        refresh.assign(7, to: other)
        #expect(try await refresh.map().node(for: 7) == other)
    }
}
