@testable import StrataRedis
import Testing

@Suite("Hash slots: CRC16 (XMODEM) of the key, or of its hash tag, mod 16384")
struct RedisHashSlotTests {
    private func slot(_ key: String) -> Int { RedisHashSlot.of(Array(key.utf8)) }

    @Test("CRC16 of \"123456789\" is the XMODEM check value 0x31C3")
    func checkValue() {
        #expect(RedisHashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(RedisHashSlot.crc16([UInt8]()) == 0)
    }

    @Test("slots match the ones Redis documents for CLUSTER KEYSLOT")
    func documentedSlots() {
        #expect(slot("somekey") == 11_058)
        #expect(slot("foo{hash_tag}") == 2_515)
        #expect(slot("bar{hash_tag}") == 2_515)
        #expect(slot("{user1}.following") == 8_106)
    }

    @Test("keys with the same hash tag share a slot: {user1000}.following and {user1000}.followers")
    func sameTagSameSlot() {
        #expect(slot("{user1000}.following") == slot("{user1000}.followers"))
        #expect(slot("{user1000}.following") == slot("user1000"))
        #expect(slot("user1000.following") != slot("user1000.followers"))
    }

    @Test("the tag is between the first { and the first } after it, and must not be empty")
    func tagRules() {
        #expect(Array(RedisHashSlot.hashedPart(of: Array("foo{}{bar}".utf8))) == Array("foo{}{bar}".utf8))
        #expect(Array(RedisHashSlot.hashedPart(of: Array("foo{{bar}}zap".utf8))) == Array("{bar".utf8))
        #expect(Array(RedisHashSlot.hashedPart(of: Array("foo{bar}{zap}".utf8))) == Array("bar".utf8))
        #expect(Array(RedisHashSlot.hashedPart(of: Array("foo{bar".utf8))) == Array("foo{bar".utf8))
        #expect(Array(RedisHashSlot.hashedPart(of: Array("foo}bar{".utf8))) == Array("foo}bar{".utf8))
        #expect(Array(RedisHashSlot.hashedPart(of: Array("}{x}".utf8))) == Array("x".utf8))
    }

    @Test("every slot is below 16384, for binary keys too")
    func range() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let key = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect((0..<16_384).contains(RedisHashSlot.of(key)))
        }
    }
}
