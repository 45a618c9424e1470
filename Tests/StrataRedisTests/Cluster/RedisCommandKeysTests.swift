@testable import StrataRedis
import Testing

@Suite("Which arguments of the store's commands are keys, for cluster routing")
struct RedisCommandKeysTests {
    @Test("single-key commands go to their key's slot; SCAN has no key")
    func singleKey() throws {
        let get = try RedisCommandKeys.split(RedisCommand("GET", "ns:abc"))
        #expect(get.count == 1 && get[0].slot == RedisHashSlot.of(Array("ns:abc".utf8)))
        #expect(try RedisCommandKeys.split(RedisCommand("PEXPIRE", "ns:abc", "1000"))[0].slot == get[0].slot)
        #expect(try RedisCommandKeys.split(RedisCommand("SCAN", "0", "MATCH", "ns:*"))[0].slot == nil)
    }

    @Test("UNLINK of keys in several slots becomes one UNLINK per slot, keys in their order")
    func splitBySlot() throws {
        // "{a}" and "{b}" hash differently; the tags keep two keys together per slot.
        let parts = try RedisCommandKeys.split(RedisCommand("UNLINK", "{a}1", "{b}1", "{a}2", "{b}2"))
        #expect(parts.count == 2)
        #expect(parts[0].slot == RedisHashSlot.of(Array("a".utf8)) && parts[0].command == RedisCommand("UNLINK", "{a}1", "{a}2"))
        #expect(parts[1].slot == RedisHashSlot.of(Array("b".utf8)) && parts[1].command == RedisCommand("UNLINK", "{b}1", "{b}2"))
    }

    @Test("a command the table does not know, or one without its key, is refused with a typed error")
    func unknown() {
        #expect(throws: RedisClientError.unroutableCommand("MGET")) { try RedisCommandKeys.split(RedisCommand("MGET", "a", "b")) }
        #expect(throws: RedisClientError.unroutableCommand("GET")) { try RedisCommandKeys.split(RedisCommand("GET")) }
    }
}
