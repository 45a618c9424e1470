import Foundation
import StrataPinning
import Testing

@Suite("StrataPinning's public errors read the same through localizedDescription")
struct PinningErrorDescriptionTests {
    static let errors: [any Error & CustomStringConvertible] = [
        CertificateError.empty,
        PinningConfigurationError.noPins,
        ServerTrustError.noVerifiedChain(host: "api.example.com"),
    ]

    @Test("localizedDescription is the description", arguments: 0..<errors.count)
    func localized(index: Int) {
        let error = Self.errors[index]
        #expect(error.localizedDescription == error.description)
    }
}
