import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import Testing
import TestServer
import TestSupport

@Suite("Concurrent writers from two processes", .needsRedisServer)
struct RedisConcurrentWritersTests {
    /// The `redis-store-writer` helper, built next to this test binary.
    private static let writer = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("redis-store-writer")

    private func runWriter(_ letter: String, url: URL) throws -> Process {
        let process = Process()
        process.executableURL = Self.writer
        process.arguments = [url.absoluteString, "test:etag", letter, "16", "4"]
        process.standardOutput = Pipe()
        try process.run()
        return process
    }

    @Test("two processes writing the same keys at once leave every key a whole entry of one of them")
    func twoProcesses() async throws {
        let server = try await RedisServerProcess.start()
        let first = try runWriter("A", url: server.url())
        let second = try runWriter("B", url: server.url())
        let summaries = await offCooperativePool { () -> [String] in
            [first, second].map { process in
                let output = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
                process.waitForExit()
                return String(decoding: output, as: UTF8.self) + " status=\(process.terminationStatus)"
            }
        }
        for summary in summaries {
            #expect(
                summary.contains("writes=64 ") && summary.contains(" unreadable=0 failed=0") && summary.hasSuffix("status=0"),
                "\(summary)")
        }

        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events)
        var winners = Set<UInt8>()
        for index in 0..<16 {
            let entry = try #require(await store.cachedResponse(for: "concurrent-key-\(index)"))
            let letter = try #require(entry.body.first)
            #expect(entry.body.prefix(8 << 10).allSatisfy { $0 == letter } && entry.body.count == (8 << 10) + 2)
            #expect(entry.etag == "\"\(Character(Unicode.Scalar(letter)))3\"")
            winners.insert(letter)
        }
        #expect(winners.isSubset(of: [UInt8(ascii: "A"), UInt8(ascii: "B")]))
        #expect(events.all.isEmpty)
    }
}
