import Foundation
@testable import StrataPinning
import Testing

@Suite("SPKI pins")
struct SPKIPinTests {
    static let base64 = "oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI="

    @Test("sha256/<base64> parses and prints back the same")
    func okHttpForm() throws {
        let pin = try SPKIPin("sha256/\(Self.base64)")
        #expect(pin.description == "sha256/\(Self.base64)")
        #expect(pin.sha256.count == 32)
    }

    @Test("RFC 7469 pin-sha256=\"...\" parses to the same pin, and prints in that form")
    func rfc7469Form() throws {
        let pin = try SPKIPin("pin-sha256=\"\(Self.base64)\"")
        #expect(pin == (try SPKIPin("sha256/\(Self.base64)")))
        #expect(pin.rfc7469 == "pin-sha256=\"\(Self.base64)\"")
    }

    @Test("surrounding whitespace and the prefix's case are ignored")
    func lenientPrefix() throws {
        #expect(try SPKIPin("  SHA256/\(Self.base64)\n").description == "sha256/\(Self.base64)")
        #expect(try SPKIPin("PIN-SHA256=\"\(Self.base64)\"").description == "sha256/\(Self.base64)")
    }

    @Test("base64 with nonzero unused bits is refused, and the message gives the canonical pin")
    func nonCanonicalPadding() throws {
        // 43 characters and '=': the last 'B' (000001) sets one of the two bits no digest has.
        let given = "sha256/" + String(repeating: "B", count: 43) + "="
        let canonical = "sha256/" + String(repeating: "B", count: 42) + "A="
        #expect(Data(base64Encoded: String(given.dropFirst(7)))?.count == 32) // a lenient decoder takes it
        let error = #expect(throws: PinningConfigurationError.self) { try SPKIPin(given) }
        guard case .malformedPin(let shown, let reason)? = error else {
            Issue.record("expected malformedPin, got \(String(describing: error))")
            return
        }
        #expect(shown == given)
        #expect(reason.contains(canonical), "\(reason)")
        #expect(try SPKIPin(canonical).description == canonical)
        #expect(throws: PinningConfigurationError.self) { try SPKIPin("pin-sha256=\"\(given.dropFirst(7))\"") }
    }

    @Test("a digest that is not 32 bytes is rejected with its length", arguments: [31, 33, 20, 0])
    func wrongLength(bytes: Int) {
        let text = "sha256/" + Data(repeating: 1, count: bytes).base64EncodedString()
        #expect {
            try SPKIPin(text)
        } throws: { error in
            guard case let .malformedPin(_, reason) = error as? PinningConfigurationError else { return false }
            return bytes == 0 ? reason.contains("base64") || reason.contains("0 bytes") : reason.contains("\(bytes) bytes")
        }
    }

    @Test(
        "malformed pins are rejected with a reason naming the problem",
        arguments: [
            ("sha256/not base64!", "base64"),
            ("sha256/oGkhelMEL-fU5WbnHJNHkLFAMJQj_p-q83PdZfa9moI=", "base64"), // base64url alphabet
            ("sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI", "base64"), // padding missing
            ("sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "unsupported algorithm 'sha1'"),
            ("oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=", "expected 'sha256/<base64>'"),
            ("pin-sha256=oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=", "double quotes"),
            ("", "expected 'sha256/<base64>'"),
        ])
    func malformed(text: String, reason expected: String) {
        #expect {
            try SPKIPin(text)
        } throws: { error in
            guard case let .malformedPin(pin, reason) = error as? PinningConfigurationError else { return false }
            return pin == text && reason.contains(expected)
        }
    }

    @Test("an absurdly long pin is refused without echoing all of it")
    func tooLong() {
        let text = "sha256/" + String(repeating: "A", count: 10_000)
        #expect {
            try SPKIPin(text)
        } throws: { error in
            guard let error = error as? PinningConfigurationError, case .malformedPin = error else { return false }
            return error.description.count < 300
        }
    }

    @Test("equality compares every byte; a digest of the wrong size is not a pin")
    func equality() throws {
        let a = try #require(SPKIPin(sha256Digest: [UInt8](repeating: 7, count: 32)))
        var bytes = [UInt8](repeating: 7, count: 32)
        bytes[31] = 8
        let b = try #require(SPKIPin(sha256Digest: bytes))
        #expect(a != b)
        #expect(a == SPKIPin(sha256Digest: [UInt8](repeating: 7, count: 32)))
        #expect(SPKIPin(sha256Digest: [UInt8](repeating: 7, count: 31)) == nil)
        #expect(Set([a, b, a]).count == 2)
    }
}
