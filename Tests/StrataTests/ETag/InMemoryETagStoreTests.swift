import Foundation
@testable import Strata
import StrataTesting
import TestServer
import Testing

/// An entry whose body is `body`, with an ETag: the store's tests tell entries apart by body.
private func entry(_ body: String) -> ETagCacheEntry {
    ETagCacheEntry(response: makeResponse(body, headers: ["ETag": "\"1\""]))
}

@Suite("InMemoryETagStore bounds")
struct InMemoryETagStoreTests {
    @Test("beyond maxEntries the least recently used entry goes, and reading counts as using")
    func entryBound() async {
        let events = RecordingObserver()
        let store = InMemoryETagStore(maxEntries: 2)
        await observingEvents(events) {
            await store.store(entry("a"), for: "a")
            await store.store(entry("b"), for: "b")
            _ = await store.cachedResponse(for: "a")
            await store.store(entry("c"), for: "c")
        }
        #expect(await store.cachedResponse(for: "a") != nil)
        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(await store.cachedResponse(for: "c") != nil)
        #expect(
            events.events(ETagStoreEvent.self) == [
                .evicted(keyDigest: ETagStoreEvent.keyDigest(of: "b"), bytes: entry("b").approximateByteCount)
            ])
    }

    @Test("the total byte bound evicts oldest first, and an entry larger than it is refused")
    func byteBound() async {
        let big = entry(String(repeating: "x", count: 400))
        let limit = big.approximateByteCount * 2 + 10
        let events = RecordingObserver()
        let store = InMemoryETagStore(maxEntries: 100, maxTotalBytes: limit)
        await store.store(big, for: "1")
        await store.store(big, for: "2")
        await store.store(big, for: "3")
        #expect(await store.count == 2)
        #expect(await store.byteCount <= limit)
        #expect(await store.cachedResponse(for: "1") == nil)

        let huge = entry(String(repeating: "y", count: limit))
        await observingEvents(events) { await store.store(huge, for: "2") }
        #expect(await store.cachedResponse(for: "2") == nil)
        #expect(
            events.events(ETagStoreEvent.self).contains(
                .rejectedTooLarge(
                    keyDigest: ETagStoreEvent.keyDigest(of: "2"),
                    bytes: huge.approximateByteCount, limit: limit)))
    }

    @Test("replacing an entry keeps the byte count exact; remove and removeAll empty it")
    func accounting() async {
        let store = InMemoryETagStore()
        await store.store(entry("aaaa"), for: "k")
        await store.store(entry("bb"), for: "k")
        #expect(await store.byteCount == entry("bb").approximateByteCount)
        await store.remove(for: "k")
        #expect(await store.byteCount == 0)
        #expect(await store.count == 0)
        await store.store(entry("a"), for: "1")
        await store.removeAll()
        #expect(await store.count == 0)
    }

    @Test("sixteen tasks storing, reading and removing at once leave the bounds and the byte count exact")
    func concurrentUse() async {
        let store = InMemoryETagStore(maxEntries: 8)
        let entries = (0..<24).map { ETagCacheEntry(response: makeResponse(String(repeating: "b", count: $0), headers: ["ETag": "\"1\""])) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for round in 0..<60 {
                        let index = (task * 7 + round) % entries.count
                        await store.store(entries[index], for: "k\(index)")
                        _ = await store.cachedResponse(for: "k\((index + 3) % entries.count)")
                        if round % 10 == 9 { await store.remove(for: "k\((index + 5) % entries.count)") }
                    }
                }
            }
        }
        var held = 0, bytes = 0
        for (index, entry) in entries.enumerated() where await store.containsEntry(for: "k\(index)") {
            held += 1
            bytes += entry.approximateByteCount
        }
        #expect(held <= 8)
        #expect(await store.count == held)
        #expect(await store.byteCount == bytes)
    }
}

@Suite("Least-recently-used order")
struct LeastRecentlyUsedOrderTests {
    @Test("touching moves a key to the newest end; removing relinks its neighbours")
    func order() {
        var order = LeastRecentlyUsedOrder<Int>()
        for key in 1...4 { order.touch(key) }
        order.touch(2)
        order.remove(3)
        #expect(order.keysOldestFirst == [1, 4, 2])
        order.remove(1)
        #expect(order.oldest == 4 && order.count == 2)
        order.touch(2)
        order.remove(2)
        order.remove(4)
        #expect(order.oldest == nil && order.keysOldestFirst.isEmpty)
    }

    @Test("under random touches and removals (freed slots reused) it keeps a plain list's order")
    func matchesAReferenceList() {
        var random = SeededGenerator(seed: 0x0_5107)
        for _ in 0..<200 {
            var order = LeastRecentlyUsedOrder<Int>()
            var model: [Int] = [] // oldest first
            for _ in 0..<60 {
                let key = Int.random(in: 0..<6, using: &random)
                if Int.random(in: 0..<3, using: &random) == 0 {
                    order.remove(key)
                    model.removeAll { $0 == key }
                } else {
                    order.touch(key)
                    model.removeAll { $0 == key }
                    model.append(key)
                }
                #expect(order.keysOldestFirst == model)
                #expect(order.oldest == model.first && order.count == model.count)
            }
            order.removeAll()
            #expect(order.oldest == nil && order.count == 0 && order.keysOldestFirst.isEmpty)
        }
    }
}

@Suite("InMemoryETagStore's most recent entry, kept beside the table")
struct InMemoryETagStoreRecentEntryTests {
    @Test("the entry read last is answered again, and never once replaced, removed or evicted")
    func recentEntryFollowsTheTable() async {
        let store = InMemoryETagStore(maxEntries: 1)
        await store.store(entry("a1"), for: "a")
        #expect(await store.cachedResponse(for: "a") == entry("a1"))
        await store.store(entry("a2"), for: "a")
        #expect(await store.cachedResponse(for: "a") == entry("a2"))
        await store.remove(for: "a")
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(await !store.containsEntry(for: "a"))
        await store.store(entry("a3"), for: "a")
        await store.store(entry("b1"), for: "b") // evicts "a", the oldest
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(await store.cachedResponse(for: "b") == entry("b1"))
        await store.removeAll()
        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(await !store.containsEntry(for: "b"))
    }

    @Test("an entry too large to keep, stored under the key read last, leaves nothing to answer")
    func tooLargeReplacementClearsTheRecentEntry() async {
        let small = entry("a")
        let store = InMemoryETagStore(maxEntries: 10, maxTotalBytes: small.approximateByteCount * 2)
        await store.store(small, for: "a")
        #expect(await store.cachedResponse(for: "a") == small)
        await store.store(entry(String(repeating: "x", count: small.approximateByteCount * 3)), for: "a")
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(await !store.containsEntry(for: "a"))
    }

    @Test("under random stores, reads and removals the store answers as a plain least-recently-used table does")
    func matchesAReferenceModel() async {
        var random = SeededGenerator(seed: 0x1A57_E27)
        let keys = ["a", "b", "c", "d"]
        for _ in 0..<200 {
            let store = InMemoryETagStore(maxEntries: 3)
            var model: [(key: String, body: String)] = [] // oldest first
            for step in 0..<40 {
                let key = keys.randomElement(using: &random)!
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    let body = "\(key)\(step)"
                    await store.store(entry(body), for: key)
                    model.removeAll { $0.key == key }
                    model.append((key, body))
                    if model.count > 3 { model.removeFirst() }
                case 4..<8:
                    let expected = model.first { $0.key == key }.map { entry($0.body) }
                    #expect(await store.cachedResponse(for: key) == expected)
                    if let index = model.firstIndex(where: { $0.key == key }) { model.append(model.remove(at: index)) }
                case 8:
                    #expect(await store.containsEntry(for: key) == model.contains { $0.key == key })
                default:
                    await store.remove(for: key)
                    model.removeAll { $0.key == key }
                }
            }
        }
    }
}
