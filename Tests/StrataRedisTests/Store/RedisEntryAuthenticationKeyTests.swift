import Foundation
import Strata
@testable import StrataRedis
import Testing

@Suite("RedisEntryAuthenticationKey and the signed entry format")
struct RedisEntryAuthenticationKeyTests {
    private static let secretText = "k3y-SECRET-bytes-0123456789abcdef"

    @Test("a key shorter than 32 bytes is refused with a configuration error that does not hold it")
    func minimumLength() throws {
        let short = Array("short-SECRET-0123456789abcdef".utf8) // 29 bytes
        #expect(throws: RedisETagStoreError.self) { try RedisEntryAuthenticationKey(short) }
        do {
            _ = try RedisEntryAuthenticationKey(short)
        } catch {
            guard case .invalidParameter("entryAuthenticationKeys", let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("29 bytes") && reason.contains("at least 32"))
            #expect(!error.description.contains("SECRET"))
        }
        #expect(throws: Never.self) { try RedisEntryAuthenticationKey(Array(Self.secretText.utf8).prefix(32)) }
    }

    @Test("a base64 key is the same key as its bytes; text that is not base64 is refused without being shown")
    func base64() throws {
        let bytes = Array(Self.secretText.utf8)
        let fromBase64 = try RedisEntryAuthenticationKey(base64Encoded: " \(Data(bytes).base64EncodedString())\n")
        #expect(fromBase64.id == (try RedisEntryAuthenticationKey(bytes)).id)
        #expect(fromBase64.bytes == bytes)
        #expect(throws: RedisETagStoreError.invalidParameter("entryAuthenticationKeys", reason: "it is not base64 text")) {
            try RedisEntryAuthenticationKey(base64Encoded: "not-base64-SECRET!")
        }
    }

    @Test("the id is a fingerprint: the same for the same key, different for another, 16 hex digits")
    func identifier() throws {
        let key = try RedisEntryAuthenticationKey(Array(Self.secretText.utf8))
        let same = try RedisEntryAuthenticationKey(Array(Self.secretText.utf8))
        let other = try RedisEntryAuthenticationKey(Array(repeating: 0, count: 32))
        #expect(key.id == same.id && key.id != other.id)
        #expect(key.id.count == 16 && key.id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }

    @Test("the key appears in no description, debug description, mirror or dump; its id does")
    func neverDescribed() throws {
        let key = try RedisEntryAuthenticationKey(Array(Self.secretText.utf8))
        var dumped = ""
        dump(key, to: &dumped)
        dump([key], to: &dumped)
        let texts = [
            "\(key)", String(reflecting: key), String(describing: [key]), dumped,
            Mirror(reflecting: key).children.map { "\($0.label ?? ""): \($0.value)" }.joined(),
        ]
        for text in texts {
            #expect(!text.contains("SECRET") && !text.contains(Data(Self.secretText.utf8).base64EncodedString()), "\(text)")
            #expect(!text.contains("107, 51, 121"), "the bytes as numbers: \(text)")
            #expect(text.contains(key.id), "\(text)")
        }
    }

    @Test("flipping any bit of a signed value, or signing it for another Redis key, makes it unauthentic")
    func everyBitCounts() throws {
        let key = try RedisEntryAuthenticationKey(Array(Self.secretText.utf8))
        let entry = Data("STRATAET and an entry's bytes".utf8)
        let value = try RedisSignedEntryFormat.sign(entry, redisKey: "ns:abc", key: key)
        let verified = try RedisSignedEntryFormat.verified(value, redisKey: "ns:abc", keys: [key])
        // In place: a slice of the value (an entry can be 8 MiB), not a copy.
        #expect(verified == entry && verified.startIndex == RedisSignedEntryFormat.headerByteCount)
        #expect(throws: RedisSignedEntryFormat.Failure.unauthenticated(.tagMismatch)) {
            try RedisSignedEntryFormat.verified(value, redisKey: "ns:abd", keys: [key])
        }
        for index in value.indices {
            for bit in 0..<8 {
                var flipped = value
                flipped[index] ^= 1 << bit
                #expect(throws: RedisSignedEntryFormat.Failure.self, "byte \(index) bit \(bit)") {
                    try RedisSignedEntryFormat.verified(flipped, redisKey: "ns:abc", keys: [key])
                }
            }
        }
    }

    @Test("the unauthenticated-entry event is a warning naming the entry's digest and why")
    func event() {
        let event = RedisETagStoreEvent.unauthenticatedEntry(keyDigest: "ab12", failure: .tagMismatch)
        #expect(event.name == "redis-etag-store.unauthenticated-entry" && event.logLevel == .warning)
        #expect(
            event.message(redactedBy: Redaction())
                == "redis-etag-store entry ab12 not authenticated, treated as a miss: "
                + "the signature does not match: changed after signing, moved from another key, or forged")
    }
}
