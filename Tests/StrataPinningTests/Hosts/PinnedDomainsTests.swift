import Foundation
@testable import StrataPinning
import Testing

@Suite("Pinned domains lookup")
struct PinnedDomainsTests {
    let chain: [Certificate]
    let wrongPin = "sha256/" + Data(repeating: 0, count: 32).base64EncodedString()
    let otherWrongPin = "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()

    init() throws {
        chain = [try Fixtures.certificate("leaf-ec"), try Fixtures.certificate("ca")]
    }

    @Test("a host no pattern matches has no evaluator, so it goes unpinned")
    func unpinnedHost() throws {
        let domains = try PinnedDomains(["api.example.com": PublicKeyPinningEvaluator(pins: [wrongPin])])
        #expect(domains.evaluator(forHost: "www.example.com") == nil)
        #expect(domains.evaluator(forHost: "API.example.com.") != nil)
    }

    @Test("when several patterns match, any of their pins may match")
    func anyMatchingPatternPasses() throws {
        let domains = try PinnedDomains([
            "**.strata.test": PublicKeyPinningEvaluator(pins: [wrongPin]),
            "*.strata.test": PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca]),
            "api.strata.test": PublicKeyPinningEvaluator(pins: [otherWrongPin]),
        ])
        let evaluator = try #require(domains.evaluator(forHost: "api.strata.test"))
        try evaluator.evaluate(chain, forHost: "api.strata.test")
        // The apex is matched only by **., whose pin is wrong.
        #expect(throws: ServerTrustError.self) {
            try domains.evaluator(forHost: "strata.test")?.evaluate(chain, forHost: "strata.test")
        }
    }

    @Test("when every matching pattern fails, the mismatch lists the pins of all of them")
    func mergedMismatch() throws {
        let domains = try PinnedDomains([
            "**.strata.test": PublicKeyPinningEvaluator(pins: [wrongPin]),
            "api.strata.test": PublicKeyPinningEvaluator(pins: [otherWrongPin, wrongPin]),
        ])
        let evaluator = try #require(domains.evaluator(forHost: "api.strata.test"))
        #expect(
            throws: ServerTrustError.pinMismatch(
                host: "api.strata.test", chain: chain,
                pins: [wrongPin, otherWrongPin])
        ) {
            try evaluator.evaluate(chain, forHost: "api.strata.test")
        }
    }

    @Test("a malformed key is rejected when the table is built")
    func malformedKey() {
        #expect(
            throws: PinningConfigurationError.malformedHostPattern(
                "api.*.com",
                reason:
                    "'*' is allowed only as the whole leftmost label ('*.' or '**.')")
        ) {
            try PinnedDomains(["api.*.com": CompositeTrustEvaluator([])])
        }
    }
}
