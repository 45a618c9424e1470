@testable import Strata
import Testing

@Suite("IdentityDigestMemo: the last credential's digest is reused, never another's")
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

    @Test("keys made with the memo are the keys made without it, whoever asked before")
    func keysAreUnchanged() throws {
        let policy = ConditionalRequestPolicy()
        let memo = IdentityDigestMemo()
        for user in ["alice", "bob", "alice", "carol", "carol"] {
            let request = makeRequest("https://api.example.com/items", headers: ["Authorization": "Bearer \(user)"])
            #expect(policy.primaryKey(for: request, memo: memo) == policy.primaryKey(for: request))
        }
    }
}
