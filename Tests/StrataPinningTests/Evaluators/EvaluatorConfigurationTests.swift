#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing

/// An evaluator that accepts every chain: a rule that pins nothing.
private struct AcceptsEverything: ServerTrustEvaluator {
    func evaluate(_ chain: [Certificate], forHost host: String) throws {}
}

@Suite("An evaluator that checks nothing is a configuration error, never a silent pass")
struct EvaluatorConfigurationTests {
    private func transport(_ evaluator: any ServerTrustEvaluator, roots: TrustRoots) -> PinningTransport {
        PinningTransport(inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": evaluator], trustRoots: roots)
    }

    @Test("an empty CompositeTrustEvaluator is refused, with any trust roots")
    func emptyComposite() throws {
        for roots in [try Pinning.privateCA(), TrustRoots.pinnedKeysOnly] {
            let error = try #require(transport(CompositeTrustEvaluator([]), roots: roots).configurationError)
            #expect(error.description.contains("localhost"))
        }
        let nested = CompositeTrustEvaluator([CompositeTrustEvaluator([]), try Pinning.pins(Fixtures.Pin.leafEC)])
        #expect(transport(nested, roots: try Pinning.privateCA()).configurationError != nil)
    }

    @Test("an empty any-of evaluator passes nothing")
    func emptyAnyOf() {
        #expect(throws: (any Error).self) { try AnyOfTrustEvaluator(evaluators: []).evaluate([], forHost: "localhost") }
    }

    @Test(".pinnedKeysOnly is refused unless the evaluator pins a key, and says why")
    func pinnedKeysOnlyNeedsPins() throws {
        let error = try #require(transport(AcceptsEverything(), roots: .pinnedKeysOnly).configurationError)
        #expect(error.description.contains("pinnedKeysOnly"))
        #expect(transport(CompositeTrustEvaluator([AcceptsEverything()]), roots: .pinnedKeysOnly).configurationError != nil)
        #expect(transport(CertificatePinningEvaluator(certificates: []), roots: .pinnedKeysOnly).configurationError != nil)
    }

    @Test("pin evaluators, alone or composed, are accepted with .pinnedKeysOnly")
    func pinsAccepted() throws {
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        #expect(transport(pins, roots: .pinnedKeysOnly).configurationError == nil)
        #expect(transport(CompositeTrustEvaluator([pins, AcceptsEverything()]), roots: .pinnedKeysOnly).configurationError == nil)
        let leaf = try Fixtures.certificate("leaf-ec")
        #expect(transport(CertificatePinningEvaluator(certificates: [leaf]), roots: .pinnedKeysOnly).configurationError == nil)
        #expect(
            transport(AcceptsEverything(), roots: try Pinning.privateCA()).configurationError == nil,
            "with chain validation, a custom rule on top is fine")
    }
}
