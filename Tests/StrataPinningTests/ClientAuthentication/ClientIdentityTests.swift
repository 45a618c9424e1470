import Foundation
@testable import StrataPinning
import Testing

@Suite("A client identity is read from PEM into OpenSSL objects and never shows its key")
struct ClientIdentityTests {
    static let passphrase = try! Fixtures.text("client-passphrase.txt").trimmingCharacters(in: .newlines)

    static func identity(
        key: String = "client.key", chain: String = "client.pem",
        passphrase: String? = nil
    ) throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: Fixtures.text(chain), privateKeyPEM: Fixtures.text(key), passphrase: passphrase)
    }

    static func failure(_ make: () throws -> ClientIdentity) -> ClientIdentityError? {
        #expect(throws: ClientIdentityError.self) { _ = try make() }
    }

    @Test("a plain PKCS #8 key and its certificate make an identity described by subject and pin only")
    func plainKey() throws {
        let identity = try Self.identity()
        #expect(identity.certificate.subject == "CN=strata-test-client,O=Strata Tests")
        #expect(identity.intermediates.isEmpty)
        let key = try Fixtures.text("client.key")
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        var dumped = ""
        dump(identity, to: &dumped)
        for text in [identity.description, dumped, String(reflecting: identity)] {
            #expect(!text.contains(body))
            #expect(!text.contains("PRIVATE KEY"))
        }
        #expect(identity.description == "client certificate CN=strata-test-client,O=Strata Tests (key \(identity.certificate.spkiPin))")
    }

    @Test("an encrypted key opens with its passphrase; without one or with a wrong one the error says which")
    func encryptedKey() throws {
        let identity = try Self.identity(key: "client-encrypted.key", passphrase: Self.passphrase)
        #expect(identity.certificate.subject.contains("strata-test-client"))
        #expect(Self.failure { try Self.identity(key: "client-encrypted.key") } == .passphraseRequired)
        let wrong = Self.failure { try Self.identity(key: "client-encrypted.key", passphrase: "not it") }
        #expect(wrong == .wrongPassphrase)
        #expect(!(wrong?.description.contains("not it") ?? true))
    }

    @Test("a passphrase given for a plain key is not needed and does no harm")
    func passphraseForPlainKey() throws {
        #expect(try Self.identity(passphrase: "unused").certificate.subject.contains("strata-test-client"))
    }

    @Test("another certificate's key, a key-less text and a certificate-less chain are refused")
    func refused() throws {
        #expect(
            Self.failure { try Self.identity(key: "leaf-ec.key") }
                == .keyDoesNotMatchCertificate(subject: "CN=strata-test-client,O=Strata Tests"))
        guard case .unreadablePrivateKey? = Self.failure({ try Self.identity(key: "client.pem") }) else {
            Issue.record("a certificate is not a private key")
            return
        }
        guard case .unreadableCertificateChain(.noCertificateFound)? = Self.failure({ try Self.identity(chain: "client.key") }) else {
            Issue.record("a key is not a certificate chain")
            return
        }
    }

    @Test("one combined PEM (certificate and key) serves as both arguments")
    func combinedPEM() throws {
        let combined = try Fixtures.text("client.pem") + Fixtures.text("client.key")
        let identity = try ClientIdentity(certificateChainPEM: combined, privateKeyPEM: combined)
        #expect(identity.certificate == (try Fixtures.certificate("client")))
    }

    @Test("the intermediates of a chain file are kept after the leaf")
    func chain() throws {
        let identity = try ClientIdentity(
            certificateChainPEM: Fixtures.text("leaf-via-intermediate-chain.pem"),
            privateKeyPEM: Fixtures.text("leaf-via-intermediate.key"))
        #expect(identity.intermediates.map(\.spkiPin) == [Fixtures.Pin.intermediate])
    }

    @Test("the most specific pattern wins: exact, then the longer base domain, then *. over **.")
    func mostSpecificPattern() throws {
        let general = try Self.identity()
        let specific = try ClientIdentity(
            certificateChainPEM: Fixtures.text("leaf-via-intermediate-chain.pem"),
            privateKeyPEM: Fixtures.text("leaf-via-intermediate.key"))
        let evaluator = try Pinning.pins(Fixtures.Pin.leafEC)
        func chosen(_ identities: [String: ClientIdentity], _ host: String) throws -> ClientIdentity? {
            let pinned = try PinnedDomains(
                Dictionary(uniqueKeysWithValues: identities.keys.map { ($0, evaluator as any ServerTrustEvaluator) }))
            return try ClientIdentities(identities, pinned: pinned).identity(for: host)
        }
        // `**.payments.example.com` covers its apex and names fewer hosts than `*.example.com`.
        let overlap = ["*.example.com": general, "**.payments.example.com": specific]
        #expect(try chosen(overlap, "payments.example.com")?.certificate == specific.certificate)
        #expect(try chosen(overlap, "eu.payments.example.com")?.certificate == specific.certificate)
        #expect(try chosen(overlap, "shop.example.com")?.certificate == general.certificate)
        // Same base domain: one label over any depth; an exact name over everything.
        let sameBase = ["**.example.com": general, "*.example.com": specific]
        #expect(try chosen(sameBase, "shop.example.com")?.certificate == specific.certificate)
        let exact = ["shop.example.com": general, "**.shop.example.com": specific]
        #expect(try chosen(exact, "shop.example.com")?.certificate == general.certificate)
    }
}
