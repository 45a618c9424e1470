import Foundation
@testable import StrataPinning
import Testing
import TestServer
import TestTraits

@Suite("Certificate parsing", .onOwnThread)
struct CertificateTests {
    @Test("the SPKI pin of an EC P-256 leaf equals the openssl pipeline's answer")
    func ecKnownAnswer() throws {
        #expect(try Fixtures.certificate("leaf-ec").spkiPin == Fixtures.Pin.leafEC)
    }

    @Test("the SPKI pin of an RSA leaf equals the openssl pipeline's answer")
    func rsaKnownAnswer() throws {
        #expect(try Fixtures.certificate("leaf-rsa").spkiPin == Fixtures.Pin.leafRSA)
    }

    @Test("CA and intermediate pins equal the openssl pipeline's answers")
    func caKnownAnswers() throws {
        #expect(try Fixtures.certificate("ca").spkiPin == Fixtures.Pin.ca)
        #expect(try Fixtures.certificate("intermediate").spkiPin == Fixtures.Pin.intermediate)
    }

    @Test("DER and PEM of the same certificate give equal values and the DER round-trips")
    func derMatchesPEM() throws {
        let der = try Fixtures.data("leaf-ec.der")
        let fromDER = try Certificate(der: der)
        let fromPEM = try Fixtures.certificate("leaf-ec")
        #expect(fromDER == fromPEM)
        #expect(fromDER.hashValue == fromPEM.hashValue)
        #expect(fromDER.der == der)
        #expect(fromDER.spkiPin == Fixtures.Pin.leafEC)
    }

    @Test("subject and issuer read as RFC 2253 lines")
    func names() throws {
        let leaf = try Fixtures.certificate("leaf-ec")
        #expect(leaf.subject == "CN=localhost,O=Strata Tests")
        #expect(leaf.issuer == "CN=Strata Test Root CA,O=Strata Tests")
        #expect(leaf.description == "\(Fixtures.Pin.leafEC): CN=localhost,O=Strata Tests")
    }

    @Test("validity dates are read from the certificate")
    func validityDates() throws {
        let expired = try Fixtures.certificate("expired")
        #expect(expired.notBefore == Date(timeIntervalSince1970: 946_684_800)) // 2000-01-01T00:00:00Z
        #expect(expired.notAfter == Date(timeIntervalSince1970: 978_307_200)) // 2001-01-01T00:00:00Z
        let future = try Fixtures.certificate("not-yet-valid")
        #expect(future.notBefore == Date(timeIntervalSince1970: 4_102_444_800)) // 2100-01-01T00:00:00Z
        let leaf = try Fixtures.certificate("leaf-ec")
        #expect(leaf.notAfter.timeIntervalSince(leaf.notBefore) == 36_500 * 86_400)
    }

    @Test("a PEM bundle yields every certificate in order")
    func bundle() throws {
        let chain = try Fixtures.bundle("leaf-via-intermediate-chain")
        #expect(chain.map(\.spkiPin) == [Fixtures.Pin.leafViaIntermediate, Fixtures.Pin.intermediate])
    }

    @Test("text around PEM blocks and keys inside a bundle are ignored")
    func explanatoryText() throws {
        let pem =
            try "Subject: the leaf\n" + Fixtures.text("leaf-ec.pem") + "\ntrailing words\n"
            + Fixtures.text("leaf-ec.key")
        #expect(try Certificate(pem: pem).spkiPin == Fixtures.Pin.leafEC)
    }

    @Test("CRLF line endings and indentation are accepted")
    func crlf() throws {
        let pem = try Fixtures.text("leaf-ec.pem").split(separator: "\n").map { "  " + $0 }.joined(separator: "\r\n")
        #expect(try Certificate(pem: pem).spkiPin == Fixtures.Pin.leafEC)
    }

    @Test("init(pem:) refuses a bundle and points at the bundle helper")
    func singleRefusesBundle() throws {
        let text = try Fixtures.text("leaf-via-intermediate-chain.pem")
        #expect(throws: CertificateError.multipleCertificates(2)) { try Certificate(pem: text) }
        #expect(CertificateError.multipleCertificates(2).description.contains("certificates(pemBundle:)"))
    }

    @Test("empty and whitespace-only input throw .empty")
    func emptyInput() {
        #expect(throws: CertificateError.empty) { try Certificate(pem: "") }
        #expect(throws: CertificateError.empty) { try Certificate(pem: " \n\t\n") }
        #expect(throws: CertificateError.empty) { try Certificate(der: Data()) }
    }

    @Test("garbage text has no certificate")
    func garbageText() {
        #expect(throws: CertificateError.noCertificateFound(otherBlocks: [])) {
            try Certificate(pem: "hello, this is not a certificate")
        }
    }

    @Test("a private key alone is named in the error")
    func keyIsNotCertificate() throws {
        let key = try Fixtures.text("leaf-ec.key")
        #expect(throws: CertificateError.noCertificateFound(otherBlocks: ["PRIVATE KEY"])) {
            try Certificate(pem: key)
        }
    }

    @Test("a PEM cut before its END line is reported as truncated")
    func truncatedPEM() throws {
        let pem = try Fixtures.text("leaf-ec.pem")
        let cut = String(pem.prefix(pem.count / 2))
        #expect(throws: CertificateError.unterminatedPEMBlock(label: "CERTIFICATE")) { try Certificate(pem: cut) }
    }

    @Test("a PEM body that is not base64 is reported")
    func invalidBase64() {
        let pem = "-----BEGIN CERTIFICATE-----\nnot*base64!\n-----END CERTIFICATE-----\n"
        #expect(throws: CertificateError.invalidBase64(label: "CERTIFICATE")) { try Certificate(pem: pem) }
    }

    @Test("a well-formed PEM block holding junk DER is a malformed certificate")
    func pemWithJunkDER() {
        let pem = "-----BEGIN CERTIFICATE-----\n\(Data("junk bytes".utf8).base64EncodedString())\n-----END CERTIFICATE-----"
        #expect {
            try Certificate(pem: pem)
        } throws: { error in
            guard case let .inBlock(1, .malformedDER(reason)) = error as? CertificateError else { return false }
            return !reason.isEmpty
        }
    }

    @Test("one bad block fails the whole bundle and names its position")
    func badBlockInBundle() throws {
        let bundle = try Fixtures.text("ca.pem") + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        #expect {
            try Certificate.certificates(pemBundle: bundle)
        } throws: { error in
            guard case .inBlock(2, .malformedDER) = error as? CertificateError else { return false }
            return true
        }
    }

    @Test("truncated DER throws malformedDER at every cut point, never crashes")
    func truncatedDER() throws {
        let der = try Fixtures.data("leaf-ec.der")
        for length in stride(from: 1, to: der.count, by: 7) {
            #expect {
                try Certificate(der: der.prefix(length))
            } throws: { error in
                guard case .malformedDER = error as? CertificateError else { return false }
                return true
            }
        }
    }

    @Test("random bytes as DER throw malformedDER")
    func randomDER() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let bytes = Data(
                (0..<Int.random(in: 1...600, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                })
            #expect(throws: CertificateError.self) { try Certificate(der: bytes) }
        }
    }

    @Test("bytes after a complete DER certificate are rejected")
    func trailingBytes() throws {
        let der = try Fixtures.data("leaf-ec.der") + Data([0, 1, 2])
        #expect(throws: CertificateError.trailingBytes(3)) { try Certificate(der: der) }
    }

    /// Found by the `certificate` fuzz target: the CA with its signature BIT STRING claiming two
    /// unused (padding) bits, which OpenSSL reads and re-encodes with those bits cleared.
    @Test("an encoding that is not DER is refused, so a certificate keeps exactly the bytes it was read from")
    func nonCanonicalDER() throws {
        let canonical = try Fixtures.certificate("ca").der
        var padded = canonical
        // The signature BIT STRING's first content byte is its count of unused bits.
        let unusedBits = padded.index(padded.startIndex, offsetBy: 353)
        #expect(padded[unusedBits] == 0)
        padded[unusedBits] = 2
        let error = #expect(throws: CertificateError.self) { try Certificate(der: padded) }
        #expect(error?.description.contains("not in DER") == true)
        #expect(try Certificate(der: canonical).der == canonical)
    }

    @Test("oversized input is refused before parsing")
    func oversized() {
        let der = Data(count: Certificate.maximumDERSize + 1)
        #expect(throws: CertificateError.tooLarge(bytes: der.count, limit: Certificate.maximumDERSize)) {
            try Certificate(der: der)
        }
        let pem = String(repeating: "A", count: Certificate.maximumPEMSize + 1)
        #expect(throws: CertificateError.tooLarge(bytes: pem.utf8.count, limit: Certificate.maximumPEMSize)) {
            try Certificate(pem: pem)
        }
    }
}
