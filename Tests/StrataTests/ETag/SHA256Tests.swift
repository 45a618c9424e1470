@testable import Strata
import Testing
import TestTraits

@Suite("SHA-256 known answers (FIPS 180-4 / NIST examples)", .onOwnThread)
struct SHA256Tests {
    @Test("the empty message, abc and the two-block NIST message hash to the published digests")
    func nistVectors() {
        #expect(SHA256.hexDigest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("messages around the 55/56/64-byte padding boundaries hash correctly")
    func paddingBoundaries() {
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
            65: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0",
            119: "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb",
            128: "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e",
        ]
        for (length, digest) in expected {
            #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: length)) == digest, "length \(length)")
        }
    }

    @Test("feeding a million a's in uneven pieces gives the NIST long-message digest")
    func incrementalUpdates() {
        var hasher = SHA256()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            hasher.update([UInt8](repeating: 0x61, count: count))
            fed += count
            piece = piece * 7 % 1_000 + 1
        }
        let digest = hasher.finalize().map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        #expect(digest.joined() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite("SHA-256 over text")
struct SHA256TextTests {
    @Test("text fed piece by piece hashes like its UTF-8 bytes at once, ASCII or not, across block boundaries")
    func utf8Pieces() {
        let pieces = [
            "strata-etag-identity\u{0}", "authorization", ":13:", "Bearer ü-tök", "\n", "", String(repeating: "x", count: 70),
            "日本語", String(repeating: "y", count: 64),
        ]
        var hasher = SHA256()
        for piece in pieces { hasher.update(utf8: piece) }
        #expect(hasher.finalizeHex() == SHA256.hexDigest(Array(pieces.joined().utf8)))
        #expect(
            SHA256.hexDigest(Array(pieces.joined().utf8))
                == SHA256.hash(Array(pieces.joined().utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
    }
}
