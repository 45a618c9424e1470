import Foundation
import Testing

@testable import Strata

@Suite("StoreKey: a key hashed once, equal only to the same text")
struct StoreKeyTests {
    @Test("keys of the same text are equal and hash alike; keys of different texts are not equal")
    func equality() {
        let key = StoreKey("etag-v1 https://api.example/a id=-")
        let same = StoreKey(String("etag-v1 https://api.example/a id=-".reversed().reversed()))
        let other = StoreKey("etag-v1 https://api.example/b id=-")
        #expect(key == same)
        #expect(key.hashValue == same.hashValue)
        #expect(key.hash == key.text.hashValue)
        #expect(key != other)
        #expect(Set([key, same, other]).count == 2)
    }

    @Test("the in-memory store finds by hashed key what was stored by text, and the reverse")
    func storeAgreesAcrossKeyForms() async {
        let store = InMemoryETagStore()
        let entry = ETagCacheEntry(response: makeResponse("one", headers: ["ETag": #""v1""#]))
        await store.store(entry, for: "by text")
        #expect(store.entry(for: StoreKey("by text"))?.body == Data("one".utf8))
        #expect(store.holdsEntry(for: StoreKey("by text")))
        store.store(entry, for: StoreKey("by hash"))
        #expect(await store.cachedResponse(for: "by hash")?.body == Data("one".utf8))
        await store.remove(for: "by hash")
        #expect(!store.holdsEntry(for: StoreKey("by hash")))
        store.remove(StoreKey("by text"))
        #expect(await store.cachedResponse(for: "by text") == nil)
        #expect(store.entry(for: StoreKey("by text, not stored")) == nil)
    }
}
