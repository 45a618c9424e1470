import StrataConnect
import Testing

@Suite("IPAddressBytes: IP literals as bytes, and network prefixes")
struct IPAddressBytesTests {
    @Test("IPv4 and IPv6 literals are their 4 and 16 bytes; names, empty text and text with a NUL are none")
    func literals() {
        #expect(IPAddressBytes.of("10.1.2.3") == [10, 1, 2, 3])
        #expect(IPAddressBytes.of("::1") == Array(repeating: 0, count: 15) + [1])
        #expect(IPAddressBytes.of("cache.internal") == nil)
        #expect(IPAddressBytes.of("") == nil)
        // inet_pton would stop at the NUL and read the address before it.
        #expect(IPAddressBytes.of("10.1.2.3\u{0}.evil") == nil)
    }

    @Test("a prefix matches the bits it names, whole or partial bytes, and never across families")
    func prefixes() {
        let network: [UInt8] = [10, 0, 0, 0]
        #expect(IPAddressBytes.prefix(of: [10, 200, 1, 1], equals: network, bits: 8))
        #expect(!IPAddressBytes.prefix(of: [11, 0, 0, 0], equals: network, bits: 8))
        #expect(IPAddressBytes.prefix(of: [172, 31, 0, 1], equals: [172, 16, 0, 0], bits: 12))
        #expect(!IPAddressBytes.prefix(of: [172, 32, 0, 1], equals: [172, 16, 0, 0], bits: 12))
        #expect(IPAddressBytes.prefix(of: [1, 2, 3, 4], equals: [9, 9, 9, 9], bits: 0))
        #expect(!IPAddressBytes.prefix(of: Array(repeating: 0, count: 16), equals: network, bits: 0))
    }
}
