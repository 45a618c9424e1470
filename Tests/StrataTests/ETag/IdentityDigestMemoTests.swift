@testable import Strata
import Testing

@Suite("IdentityDigestMemo: the last credential's digest and recent keys are reused, never another's")
struct IdentityDigestMemoTests {
    @Test("the same fields reuse the digest; other fields compute theirs; going back computes again")
    func remembersTheLastIdentityOnly() {
        let memo = IdentityDigestMemo()
        var computed: [String] = []
        func digest(_ fields: [String]) -> String {
            memo.digest(of: fields) {
                computed.append(fields.joined())
                return "digest of " + fields.joined(separator: "|")
            }
        }
        let alice = ["authorization", "Bearer alice"], bob = ["authorization", "Bearer bob"]
        #expect(digest(alice) == "digest of authorization|Bearer alice")
        #expect(digest(alice) == "digest of authorization|Bearer alice")
        #expect(digest(bob) == "digest of authorization|Bearer bob")
        #expect(digest(alice) == "digest of authorization|Bearer alice")
        #expect(computed == ["authorizationBearer alice", "authorizationBearer bob", "authorizationBearer alice"])
    }

    @Test("keys made with the memo are the keys made without it, whoever asked before and for whatever URL")
    func keysAreUnchanged() throws {
        let policy = ConditionalRequestPolicy()
        let memo = IdentityDigestMemo()
        let urls = [
            "https://api.example.com/items", "https://api.example.com/items", "https://API.example.com/items?page=2",
            "https://user:secret@api.example.com/items", "https://api.example.com/items",
        ]
        var keys = Set<String>()
        for user in ["alice", "bob", "alice", "carol", "carol"] {
            for url in urls {
                let request = makeRequest(url, headers: ["Authorization": "Bearer \(user)"])
                let key = policy.primaryKey(for: request, memo: memo)
                #expect(key == policy.primaryKey(for: request))
                keys.insert(key)
            }
        }
        // Three users, three resources (the userinfo is part of the partition): nine keys.
        #expect(keys.count == 9)
    }

    @Test("keys of 16 URLs asked for in turn are all remembered; another URL or digest is never given one")
    func remembersRecentKeysOfSeveralURLs() {
        let memo = IdentityDigestMemo()
        let urls = (0..<16).map { "https://api.example.com/items?task=\($0)" }
        for url in urls { memo.remember(key: StoreKey("key of " + url), forURL: url, digest: "d") }
        for _ in 0..<3 {
            for url in urls {
                #expect(memo.key(forURL: url, digest: "d") == StoreKey("key of " + url))
                #expect(memo.key(forURL: url, digest: "another digest") == nil)
            }
        }
        #expect(memo.key(forURL: "https://api.example.com/other", digest: "d") == nil)
    }

    @Test("two URLs sharing a bucket are both kept; a third replaces the one used less recently, never gets its key")
    func bucketKeepsTwo() throws {
        let first = "https://api.example.com/items/0"
        let bucket = IdentityDigestMemo.bucket(of: first)
        let sharing = (1..<10_000).lazy.map { "https://api.example.com/items/\($0)" }
            .filter { IdentityDigestMemo.bucket(of: $0) == bucket }
        let second = try #require(sharing.first), third = try #require(sharing.dropFirst().first)
        let memo = IdentityDigestMemo()
        for url in [first, second] { memo.remember(key: StoreKey("key of " + url), forURL: url, digest: "d") }
        #expect(memo.key(forURL: second, digest: "d") == StoreKey("key of " + second))
        #expect(memo.key(forURL: first, digest: "d") == StoreKey("key of " + first))
        // `first` was used last: `third` replaces `second`.
        #expect(memo.key(forURL: third, digest: "d") == nil)
        memo.remember(key: StoreKey("key of " + third), forURL: third, digest: "d")
        #expect(memo.key(forURL: first, digest: "d") == StoreKey("key of " + first))
        #expect(memo.key(forURL: third, digest: "d") == StoreKey("key of " + third))
        #expect(memo.key(forURL: second, digest: "d") == nil)
    }

    @Test("the remembered key is another identity's never: the same URL and token with another client certificate or partition")
    func rememberedKeyKeepsItsIdentity() {
        let memo = IdentityDigestMemo()
        let request = makeRequest("https://api.example.com/items", headers: ["Authorization": "Bearer alice"])
        let plain = ConditionalRequestPolicy()
        let named = ConditionalRequestPolicy(partition: .named("tenant-a"))
        var keys: [String] = []
        for (policy, identity) in [(plain, nil), (plain, "cert-a"), (plain, "cert-b"), (named, nil), (plain, nil), (plain, "cert-a")]
            as [(ConditionalRequestPolicy, String?)]
        {
            let key = policy.primaryKey(for: request, clientIdentity: identity, memo: memo)
            #expect(key == policy.primaryKey(for: request, clientIdentity: identity))
            keys.append(key)
        }
        #expect(Set(keys).count == 4)
        #expect(keys[0] == keys[4] && keys[1] == keys[5])
    }
}
