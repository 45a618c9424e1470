#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing

@Suite("A report-only evaluator reports what it would refuse, never refuses, and never combines with pinnedKeysOnly")
struct ReportOnlyEvaluatorTests {
    static func chain() throws -> [Certificate] { [try Fixtures.certificate("leaf-ec"), try Fixtures.certificate("ca")] }

    @Test("it passes any chain and reports the wrapped evaluator's refusal with the expected pins")
    func reports() throws {
        let chain = try Self.chain()
        let evaluator = ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.attackerLeaf))
        try evaluator.evaluate(chain, forHost: "localhost")
        #expect(
            ReportOnlyEvaluator.failures(in: evaluator, chain: chain, host: "localhost")
                == ["no certificate of the verified chain matches the pins \(Fixtures.Pin.attackerLeaf)"])
        let matching = ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.ca))
        #expect(ReportOnlyEvaluator.failures(in: matching, chain: chain, host: "localhost").isEmpty)
        #expect(MatchedPin.of(matching, chain: chain) == Fixtures.Pin.ca)
        #expect(!evaluator.requiresPinnedKey)
    }

    @Test("inside a composite it only reports; the other members still enforce")
    func insideComposite() throws {
        let chain = try Self.chain()
        let enforcedPass = CompositeTrustEvaluator([
            ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.attackerCA)),
            try Pinning.pins(Fixtures.Pin.leafEC),
        ])
        try enforcedPass.evaluate(chain, forHost: "localhost")
        #expect(ReportOnlyEvaluator.failures(in: enforcedPass, chain: chain, host: "localhost").count == 1)
        let enforcedFail = CompositeTrustEvaluator([
            ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.leafEC)),
            try Pinning.pins(Fixtures.Pin.attackerCA),
        ])
        #expect(throws: ServerTrustError.self) { try enforcedFail.evaluate(chain, forHost: "localhost") }
    }

    @Test("when several patterns match, an enforced evaluator decides and a report-only one cannot let a chain through")
    func severalPatterns() throws {
        let chain = try Self.chain()
        let domains = try PinnedDomains([
            "**.strata.test": ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.leafEC)),
            "api.strata.test": try Pinning.pins(Fixtures.Pin.attackerLeaf),
        ])
        let evaluator = try #require(domains.evaluator(forHost: "api.strata.test"))
        #expect(throws: ServerTrustError.self) { try evaluator.evaluate(chain, forHost: "api.strata.test") }
        // Only report-only patterns match: nothing is enforced, the mismatch is reported.
        let reportOnly = try #require(domains.evaluator(forHost: "other.strata.test"))
        try reportOnly.evaluate(chain, forHost: "other.strata.test")
        let both = try PinnedDomains([
            "**.strata.test": ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.attackerCA)),
            "api.strata.test": try Pinning.pins(Fixtures.Pin.leafEC),
        ])
        let passing = try #require(both.evaluator(forHost: "api.strata.test"))
        try passing.evaluate(chain, forHost: "api.strata.test")
        #expect(ReportOnlyEvaluator.failures(in: passing, chain: chain, host: "api.strata.test").count == 1)
    }

    @Test("a composite holding only report-only evaluators, at any depth, cannot let a chain through an enforced pattern")
    func wrappedReportOnlyDoesNotDecide() throws {
        let chain = try Self.chain()
        let passingReportOnly = ReportOnlyEvaluator(try Pinning.pins(Fixtures.Pin.leafEC))
        let wrappers: [any ServerTrustEvaluator] = [
            CompositeTrustEvaluator([passingReportOnly]),
            CompositeTrustEvaluator([CompositeTrustEvaluator([passingReportOnly]), ReportOnlyEvaluator(passingReportOnly)]),
        ]
        for wrapper in wrappers {
            let domains = try PinnedDomains([
                "**.strata.test": wrapper,
                "api.strata.test": try Pinning.pins(Fixtures.Pin.attackerLeaf),
            ])
            let evaluator = try #require(domains.evaluator(forHost: "api.strata.test"))
            #expect(throws: ServerTrustError.self) { try evaluator.evaluate(chain, forHost: "api.strata.test") }
            // Alone it still enforces nothing.
            try #require(domains.evaluator(forHost: "other.strata.test")).evaluate(chain, forHost: "other.strata.test")
        }
        // A composite with one enforced member still decides next to another pattern.
        let mixed = try PinnedDomains([
            "**.strata.test": CompositeTrustEvaluator([passingReportOnly, try Pinning.pins(Fixtures.Pin.leafEC)]),
            "api.strata.test": try Pinning.pins(Fixtures.Pin.attackerLeaf),
        ])
        try #require(mixed.evaluator(forHost: "api.strata.test")).evaluate(chain, forHost: "api.strata.test")
    }

    @Test("with .pinnedKeysOnly it is a configuration error, wherever it sits in the evaluator")
    func pinnedKeysOnly() async throws {
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        for evaluator: any ServerTrustEvaluator in [
            ReportOnlyEvaluator(pins),
            CompositeTrustEvaluator([pins, ReportOnlyEvaluator(pins)]),
        ] {
            let transport = PinningTransport(
                inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": evaluator],
                trustRoots: .pinnedKeysOnly)
            #expect(transport.configurationError == .reportOnlyWithPinnedKeysOnly(hostPattern: "localhost"))
            #expect(transport.configurationError?.description.contains("report-only") == true)
            await #expect(throws: PinningConfigurationError.self) {
                _ = try await transport.send(URLRequest(url: URL(string: "https://localhost/")!))
            }
        }
        let verified = PinningTransport(
            inner: CannedRoutesTransport(routes: []),
            pinnedDomains: ["localhost": ReportOnlyEvaluator(pins)], trustRoots: try Pinning.privateCA())
        #expect(verified.configurationError == nil)
    }
}
