// `strata-bench stores`: gets and puts per second for RedisETagStore, FileETagStore and
// InMemoryETagStore, 4 KB and 1 MB entries, one task and 8 concurrent tasks, side by side in
// one run. Redis is a real redis-server started on a free loopback port (Debian package
// redis-server); the file store writes to a temporary directory.
import Foundation
import RedisTestServer
import Strata
import StrataRedis

enum StoreBenchmark {
    private struct Size {
        var name: String
        var bytes: Int
        var keys: Int
        var operations: Int
    }

    private static let sizes = [
        Size(name: "4 KB", bytes: 4 << 10, keys: 256, operations: 4_000),
        Size(name: "1 MB", bytes: 1 << 20, keys: 16, operations: 200),
    ]

    static func run() async throws {
        guard RedisServerProcess.isInstalled else {
            print("strata-bench stores needs redis-server: apt-get install redis-server")
            return
        }
        let redis = try await RedisServerProcess.start(configuration: [
            "--maxmemory", "1gb",
            "--maxmemory-policy", "allkeys-lru",
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stores: [(String, any ETagStoreProtocol)] = [
            ("InMemoryETagStore", InMemoryETagStore(maxEntries: 10_000, maxTotalBytes: 1 << 30)),
            ("FileETagStore", try FileETagStore(directory: directory, maxTotalBytes: 1 << 30)),
            ("RedisETagStore (loopback)", try RedisETagStore(url: redis.url(), maxConnections: 8)),
        ]
        print("ETag stores: operations per second (higher is better); c = concurrent tasks")
        print(
            "store".padding(toLength: 28, withPad: " ", startingAt: 0) + "entry   "
                + ["puts c=1", "gets c=1", "puts c=8", "gets c=8"].map { $0.leftPadded(to: 11) }.joined())
        for size in sizes {
            for (name, store) in stores {
                var columns: [Double] = []
                for concurrency in [1, 8] {
                    columns.append(
                        try await rate(size, concurrency: concurrency) { key, entry in
                            await store.store(entry, for: key)
                        })
                    columns.append(
                        try await rate(size, concurrency: concurrency) { key, entry in
                            guard await store.cachedResponse(for: key)?.body.count == entry.body.count else {
                                throw BenchmarkError.miss(store: name, key: key)
                            }
                        })
                }
                print(
                    name.padding(toLength: 28, withPad: " ", startingAt: 0) + size.name.padding(toLength: 8, withPad: " ", startingAt: 0)
                        + columns.map { String(format: "%.0f", $0).leftPadded(to: 11) }.joined())
            }
        }
    }

    private enum BenchmarkError: Error {
        case miss(store: String, key: String)
    }

    /// Operations per second of `operation` over `size.operations` calls spread over its keys.
    private static func rate(
        _ size: Size, concurrency: Int,
        _ operation: @escaping @Sendable (String, ETagCacheEntry) async throws -> Void
    ) async throws -> Double {
        let entry = ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200, headers: ["ETag": "\"bench\"", "Content-Type": "application/octet-stream"],
                body: Data(repeating: 0x5A, count: size.bytes),
                url: URL(string: "https://api.example/bench")))
        let perTask = size.operations / concurrency
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    for index in 0..<perTask { try await operation("bench-\((task * perTask + index) % size.keys)", entry) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        return Double(perTask * concurrency) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
