import Foundation
import StrataPinning
import Testing

@Suite("HMAC-SHA-256 through OpenSSL")
struct OpenSSLHMACSHA256Tests {
    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("RFC 4231 test cases 1, 2 and 6 (a key longer than a block)")
    func rfc4231() throws {
        let cases: [(key: [UInt8], data: String, code: String)] = [
            (
                Array(repeating: 0x0B, count: 20), "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                Array(repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
        for (key, data, code) in cases {
            #expect(Self.hex(try OpenSSLHMACSHA256.authenticationCode(for: [Array(data.utf8)], key: key)) == code)
        }
    }

    @Test("a message in parts, empty ones included, has the code of its concatenation")
    func parts() throws {
        let key = Array("Jefe".utf8)
        let parts: [any ContiguousBytes] = [Data("what do ya ".utf8), [UInt8](), Array("want for nothing?".utf8), Data()]
        #expect(
            Self.hex(try OpenSSLHMACSHA256.authenticationCode(for: parts, key: key))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("codes computed at once on many threads, from the one HMAC the process fetched, are each the code")
    func concurrent() async throws {
        let key = Array("Jefe".utf8)
        let message = [Array("what do ya want for nothing?".utf8)]
        let codes = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try (0..<200).map { _ in Self.hex(try OpenSSLHMACSHA256.authenticationCode(for: message, key: key)) }
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        #expect(codes == ["5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"])
    }

    @Test("an empty key is refused")
    func emptyKey() {
        #expect(throws: OpenSSLHMACSHA256Error(reason: "the key is empty")) {
            try OpenSSLHMACSHA256.authenticationCode(for: [Data("x".utf8)], key: [])
        }
    }

    @Test("codes compare equal only when every byte and the length match")
    func comparison() {
        let code = [UInt8](repeating: 7, count: 32)
        var last = code
        last[31] ^= 1
        #expect(OpenSSLHMACSHA256.isEqual(code, code))
        #expect(!OpenSSLHMACSHA256.isEqual(code, last))
        #expect(!OpenSSLHMACSHA256.isEqual(code, Array(code.prefix(31))))
        #expect(OpenSSLHMACSHA256.isEqual([], []))
    }
}
