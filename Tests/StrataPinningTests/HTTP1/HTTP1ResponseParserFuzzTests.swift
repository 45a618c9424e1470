import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestTraits

@Suite("HTTP1ResponseParser under fuzzing", .onOwnThread)
struct HTTP1ResponseParserFuzzTests {
    /// Bytes that matter to the grammar, so mutations hit interesting paths more often than
    /// uniformly random bytes would.
    private static let interestingBytes: [UInt8] = Array("\r\n:; \t0123456789aAfFzZ,-HTTP/".utf8) + [0, 0x7F, 0xFF]
    private static let mutator = ByteMutator(interestingBytes: interestingBytes)

    @Test("20,000 mutated responses fed in random pieces never crash, always terminate and respect the limits")
    func mutatedInputs() {
        var random = SeededGenerator(seed: 0x5EED_0007)
        let corpus = validCorpus.map { Array($0.utf8) }
        let methods: [HTTPMethod] = [.get, .head, .post]
        var outcomes = (responses: 0, errors: 0)
        for _ in 0..<20_000 {
            let base = corpus.randomElement(using: &random) ?? []
            let input = Self.mutator.mutate(base, using: &random)
            let limits = HTTPLimits(
                maxHeaderBlockBytes: Int.random(in: 16...256, using: &random),
                maxHeaderCount: Int.random(in: 1...8, using: &random),
                maxResponseBodyBytes: Int.random(in: 0...64, using: &random),
                maxChunkSizeLineBytes: Int.random(in: 2...32, using: &random),
                maxInterimResponses: Int.random(in: 0...2, using: &random))
            var parser = HTTP1ResponseParser(limits: limits)
            parser.expectResponse(to: methods.randomElement(using: &random) ?? .get)
            var offset = 0
            var steps = 0
            do {
                while offset < input.count {
                    let end = min(input.count, offset + Int.random(in: 1...32, using: &random))
                    if let response = try parser.feed(input[offset..<end]) {
                        check(response, limits)
                        outcomes.responses += 1
                        // Whatever follows is read as the next response on the same connection.
                        parser.expectResponse(to: .get)
                    }
                    offset = end
                    steps += 1
                }
                let response = try parser.finish()
                check(response, limits)
                outcomes.responses += 1
            } catch {
                outcomes.errors += 1
            }
            #expect(steps <= input.count)
        }
        // Both paths were exercised substantially; otherwise the mutations are too weak or too strong.
        #expect(outcomes.responses > 1_000)
        #expect(outcomes.errors > 1_000)
    }

    @Test("random bytes fed without any valid corpus are refused or parsed, never crash")
    func randomBytes() {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...200, using: &random)
            var input = Array("HTTP/1.1 ".utf8)
            input += (0..<length).map { _ in
                Self.interestingBytes.randomElement(using: &random) ?? 0
            }
            var parser = HTTP1ResponseParser(limits: HTTPLimits(maxHeaderBlockBytes: 128, maxResponseBodyBytes: 64))
            parser.expectResponse(to: .get)
            _ = try? parser.feed(input)
            _ = try? parser.finish()
        }
    }

    private func check(_ response: HTTP1Response, _ limits: HTTPLimits) {
        #expect(response.body.count <= limits.maxResponseBodyBytes)
        #expect(response.headers.count <= limits.maxHeaderCount)
        #expect(response.trailers.count <= limits.maxHeaderCount)
        #expect((100...599).contains(response.statusCode))
    }
}
