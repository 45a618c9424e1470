import Foundation
@testable import StrataPinning
import Testing
import TestServer
import TestTraits

/// Seeded random and mutated inputs: every parser that faces untrusted text or bytes must
/// answer with a value or a typed error, never a crash or a hang.
@Suite("Hostile input", .onOwnThread)
struct HostileInputTests {
    static let alphabet = Array("abcAZ09-_.*:/=+\"[] \n\u{0}é-----BEGIN CERTIFICATE END")

    @Test("random strings give a host pattern or a typed error")
    func hostPatterns() {
        var generator = SeededGenerator(seed: 1)
        for _ in 0..<2_000 {
            let text = randomText(&generator)
            do {
                let pattern = try HostPattern(text)
                _ = pattern.matches(randomText(&generator))
            } catch {
                guard case .malformedHostPattern = error else { Issue.record("unexpected \(error)"); return }
            }
        }
    }

    @Test("random strings give a pin or a typed error")
    func pins() {
        var generator = SeededGenerator(seed: 2)
        for _ in 0..<2_000 {
            let text = (Bool.random(using: &generator) ? "sha256/" : "") + randomText(&generator)
            do {
                _ = try SPKIPin(text)
            } catch {
                guard case .malformedPin = error else { Issue.record("unexpected \(error)"); return }
            }
        }
    }

    @Test("random PEM-like text gives certificates or a typed error")
    func pemText() {
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2_000 {
            _ = try? Certificate.certificates(pemBundle: randomText(&generator))
        }
    }

    @Test("a valid certificate with single bytes corrupted parses or fails with a typed error")
    func mutatedDER() throws {
        let der = try Fixtures.certificate("leaf-rsa").der
        var generator = SeededGenerator(seed: 4)
        for _ in 0..<1_000 {
            var mutated = der
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[index] = UInt8.random(in: 0...255, using: &generator)
            do {
                _ = try Certificate(der: mutated).spkiPin
            } catch {
                // Any CertificateError is fine: the point is no crash.
            }
        }
    }

    private func randomText(_ generator: inout SeededGenerator) -> String {
        String(
            (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &generator)]
            })
    }
}
