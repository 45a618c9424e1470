#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import Testing
import TestSupport

@Suite("RedisClient: timeouts, the connection bound, and no blocked cooperative threads")
struct RedisClientTests {
    private func client(
        _ url: URL, maxConnections: Int = 4, connectTimeout: Duration = .seconds(2),
        commandTimeout: Duration = .seconds(5)
    ) throws -> RedisClient {
        let settings = RedisConnection.Settings(
            endpoint: try RedisEndpoint(url: url), limits: RESPLimits(),
            connectTimeout: TestTimeScale.scaled(connectTimeout),
            commandTimeout: TestTimeScale.scaled(commandTimeout))
        return RedisClient(settings: settings, maxConnections: maxConnections)
    }

    @Test("a server that never completes the TCP handshake costs the connect timeout, then an error")
    func connectTimeout() async throws {
        let listener = try FullBacklogListener()
        let redis = try client(URL(string: "redis://127.0.0.1:\(listener.port)")!, connectTimeout: .milliseconds(200))
        await #expect(throws: RedisClientError.connectTimedOut(peer: "127.0.0.1:\(listener.port)/0")) {
            try await redis.send([RedisCommand("PING")])
        }
    }

    @Test(
        "a host name is resolved (on a thread of its own); one that does not resolve is an error naming the peer",
        .needsRedisServer)
    func hostNames() async throws {
        let server = try await RedisServerProcess.start()
        let byName = try client(URL(string: "redis://localhost:\(server.port)")!)
        #expect(try await byName.send([RedisCommand("PING")]) == [.simpleString("PONG")])

        let nowhere = try client(URL(string: "redis://no-such-host.invalid:6379")!, connectTimeout: .seconds(5))
        do {
            _ = try await nowhere.send([RedisCommand("PING")])
            Issue.record("a host that does not exist answered")
        } catch {
            // Without a resolver configured, the lookup may instead run into the connect timeout.
            switch error {
            case .cannotResolve(let peer, _), .connectTimedOut(let peer): #expect(peer == "no-such-host.invalid:6379/0")
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("many concurrent commands use no more connections than maxConnections", .needsRedisServer)
    func connectionBound() async throws {
        let server = try await RedisServerProcess.start()
        // A generous command timeout: 64 batches queue for two lanes, and in a full, loaded
        // test run the wait is long; this test is about the bound, not the speed.
        let redis = try client(server.url(), maxConnections: 2, commandTimeout: .seconds(60))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { _ = try await redis.send([RedisCommand("SET", RedisArgument("k\(index)"), "v")]) }
            }
            try await group.waitForAll()
        }
        guard case .integer(let connected) = try await RedisAdmin(server.url()).run("INFO", "clients").infoField("connected_clients") else {
            Issue.record("no connected_clients in INFO")
            return
        }
        #expect(connected == 3) // the two pooled connections and the admin's
    }

    @Test("commands waiting on a silent server hold no cooperative thread: other tasks run meanwhile")
    func offCooperativePool() async throws {
        let silent = try SilentListener()
        let lanes = ProcessInfo.processInfo.activeProcessorCount + 2
        let redis = try client(
            URL(string: "redis://127.0.0.1:\(silent.port)")!, maxConnections: lanes,
            commandTimeout: .seconds(60))
        let finished = LockedValue(0)
        let blocked = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<lanes {
                    group.addTask {
                        _ = try? await redis.send([RedisCommand("PING")])
                        finished.withLock { $0 += 1 }
                    }
                }
            }
        }
        // Every lane has connected and sent its PING, and waits up to 60 s for the answer. Had
        // they blocked cooperative threads (more lanes than there are), nothing below could run
        // until the command timeout.
        await silent.waitForConnections(lanes)
        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 0..<(lanes * 4) { group.addTask { value } }
            return await group.reduce(0, +)
        }
        #expect(sum == (0..<(lanes * 4)).reduce(0, +))
        #expect(finished.withLock { $0 } == 0)
        silent.hangUp()
        await blocked.value
        #expect(finished.withLock { $0 } == lanes)
    }
}

extension RESPValue {
    /// The integer value of `name:<n>` in an `INFO` reply.
    func infoField(_ name: String) -> RESPValue? {
        guard case .bulkString(let bytes?) = self else { return nil }
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix(name + ":") }
        return line.flatMap { Int64($0.dropFirst(name.count + 1)) }.map(RESPValue.integer)
    }
}

/// A listening socket whose accept queue is full and never drained: Linux drops further SYNs,
/// so a connect to it neither succeeds nor is refused until the client gives up.
final class FullBacklogListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        var (listener, address) = try listeningLoopbackSocket(backlog: 0)
        port = Int(UInt16(bigEndian: address.sin_port))
        var fillers: [Int32] = []
        // A backlog of 0 admits one connection; two more make sure the queue is full.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(filler)
        }
        descriptors = [listener] + fillers
    }

    deinit { descriptors.forEach { close($0) } }
}

/// A TCP listener that accepts connections and never says a word, and tells a waiting task
/// when a given number have arrived.
final class SilentListener: Sendable {
    private struct State {
        var accepted: [Int32] = []
        var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?
        var closed = false
    }

    let port: Int
    private let listener: Int32
    private let state = LockedValue(State())

    init() throws {
        let (listener, address) = try listeningLoopbackSocket(backlog: 64)
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { hangUp() }

    /// Returns once `count` connections have been accepted.
    func waitForConnections(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.accepted.count < count else { return true }
                state.waiter = (count, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops listening and shuts every accepted connection down.
    func hangUp() {
        let accepted: [Int32]? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            return state.accepted
        }
        guard let accepted else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in accepted { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { return }
            let resume = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.accepted.append(descriptor)
                guard let waiter = state.waiter, state.accepted.count >= waiter.count else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            resume?.resume()
        }
    }
}

/// A TCP socket listening on 127.0.0.1 with an OS-chosen port, and its bound address.
private func listeningLoopbackSocket(backlog: Int32) throws -> (descriptor: Int32, address: sockaddr_in) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0
                && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard ready else {
        close(descriptor)
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return (descriptor, address)
}
