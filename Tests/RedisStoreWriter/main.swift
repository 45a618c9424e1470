// redis-store-writer: a second process for StrataRedisTests' concurrent-writers test.
//
//   redis-store-writer <redis-url> <namespace> <writer-letter> <keys> <rounds>
//
// Writes `rounds` times an entry for each of `keys` keys through a RedisETagStore, each body
// 8 KiB of the writer's letter followed by the round number, reading a key back after each
// write. Prints one line, `writes=<n> reads=<n> unreadable=<n> failed=<n>`, and exits 0; the
// test runs two of these at once against the same keys.
import Foundation
import Strata
import StrataRedis

let arguments = CommandLine.arguments
guard arguments.count == 6, let url = URL(string: arguments[1]), let letter = arguments[3].utf8.first,
    let keyCount = Int(arguments[4]), let rounds = Int(arguments[5])
else {
    FileHandle.standardError.write(Data("usage: redis-store-writer <redis-url> <namespace> <letter> <keys> <rounds>\n".utf8))
    exit(64)
}

final class Tally: Sendable {
    private let counts = LockedValue([String: Int]())
    func add(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

let tally = Tally()
let store = try RedisETagStore(url: url, namespace: arguments[2])
// The store reports to the observers of the task that calls it, as it would under a LoggingTransport.
await TransportEvents.observing({ observed in
    guard let event = observed.event as? RedisETagStoreEvent else { return }
    switch event {
    case .unreadableEntry: tally.add("unreadable")
    default: tally.add("failed")
    }
}) { _ in
    for round in 0..<rounds {
        for index in 0..<keyCount {
            let body = Data(repeating: letter, count: 8 << 10) + Data("-\(round)".utf8)
            let response = HTTPResponse(statusCode: 200, headers: ["ETag": "\"\(arguments[3])\(round)\""], body: body)
            await store.store(ETagCacheEntry(response: response), for: "concurrent-key-\(index)")
            tally.add("writes")
            if await store.cachedResponse(for: "concurrent-key-\((index + 1) % keyCount)") != nil { tally.add("reads") }
        }
    }
}
print("writes=\(tally["writes"]) reads=\(tally["reads"]) unreadable=\(tally["unreadable"]) failed=\(tally["failed"])")
