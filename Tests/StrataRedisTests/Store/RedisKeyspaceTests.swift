@testable import StrataRedis
import Testing

@Suite("RedisKeyspace: digested keys under a namespace")
struct RedisKeyspaceTests {
    @Test("a store key becomes <namespace>:<64 hex digits>, whatever the URL in it")
    func keyShape() throws {
        let keyspace = try RedisKeyspace(namespace: "svc:etag")
        let key = keyspace.redisKey(for: "etag-v1 https://api.example/items?access_token=abc id=-")
        #expect(key.hasPrefix("svc:etag:") && key.utf8.count == "svc:etag:".utf8.count + 64)
        #expect(!key.contains("access_token") && !key.contains("example"))
        #expect(key == "svc:etag:" + keyspace.keyDigest(of: "etag-v1 https://api.example/items?access_token=abc id=-"))
    }

    @Test("the SCAN pattern escapes glob characters and matches only entry-shaped keys")
    func scanPattern() throws {
        let pattern = try RedisKeyspace(namespace: "a*b[1]").scanPattern
        #expect(pattern.hasPrefix(#"a\*b\[1\]:[0-9a-f]"#))
        #expect(pattern.components(separatedBy: "[0-9a-f]").count == 65)
    }

    @Test("empty, spaced, non-ASCII or overlong namespaces are refused")
    func invalid() {
        for namespace in ["", "my etag", "étag", "tab\tx", String(repeating: "n", count: 129)] {
            #expect(throws: RedisETagStoreError.self) { try RedisKeyspace(namespace: namespace) }
        }
    }
}
