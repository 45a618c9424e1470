#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// `Vary` matching after the normalisations RFC 9111 §4.1 allows.
@Suite("ETagTransport matches Vary'd request fields after normalisation (RFC 9111 §4.1)")
struct VaryNormalizationTests {
    @Test("RFC 9111 §4.1: field lines are combined with \", \", and whitespace around list members is ignored")
    func combineAndTrim() {
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: ["en", "fr"]) == "en, fr")
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: [" en ,fr\t"]) == "en, fr")
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: ["en,, fr,"]) == "en, fr")
        #expect(SelectingFieldValue.normalized(name: "accept-encoding", values: ["gzip ; q=1.0 ,br;q = 0.5"]) == "gzip;q=1.0, br;q=0.5")
        // Absent and empty differ.
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: []) == nil)
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: [""]) == "")
    }

    @Test("RFC 9111 §4.1: case-insensitive tokens of Accept, Accept-Charset, Accept-Encoding and Accept-Language compare without case")
    func caseOfTokens() {
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: ["EN-gb, Fr;Q=0.5"]) == "en-gb, fr;q=0.5")
        #expect(SelectingFieldValue.normalized(name: "accept-encoding", values: ["GZIP"]) == "gzip")
        #expect(SelectingFieldValue.normalized(name: "accept-charset", values: ["UTF-8"]) == "utf-8")
        // Media types and parameter names fold; a parameter's value may be case-sensitive (RFC 9110 §8.3.1).
        #expect(
            SelectingFieldValue.normalized(name: "accept", values: ["Application/JSON; Profile=\"https://x/A, B\""])
                == "application/json;profile=\"https://x/A, B\"")
    }

    @Test("RFC 9111 §4.1: other fields are compared as sent (lines combined), and list members are never reordered")
    func otherFieldsExact() {
        #expect(SelectingFieldValue.normalized(name: "x-variant", values: ["Doe,John"]) == "Doe,John")
        #expect(SelectingFieldValue.normalized(name: "x-variant", values: [" a ", "B"]) == "a, B")
        #expect(SelectingFieldValue.normalized(name: "accept-language", values: ["fr, en"]) == "fr, en")
    }

    @Test("RFC 9111 §4.1: Accept-Language: en, fr and en,fr (and EN,FR, and two field lines) select the same stored response")
    func transportSelectsNormalisedVariant() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        #expect(try await cache.get(["Accept-Language": "en, fr"]).source == .network)
        #expect(try await cache.get(["Accept-Language": "en,fr"]).source == .fresh)
        #expect(try await cache.get(["Accept-Language": " EN ,FR"]).source == .fresh)
        let twoLines = HTTPRequest(
            url: URL(string: cache.url)!, headers: HTTPHeaders([("Accept-Language", "en"), ("accept-language", "fr")]))
        #expect(try await cache.observed.send(twoLines).source == .fresh)
        #expect(cache.origin.requests == 1)
        // Another preference order is another request.
        #expect(try await cache.get(["Accept-Language": "fr, en"]).source == .network)
        #expect(cache.origin.requests == 2)
    }

    @Test("RFC 9111 §4.1: a custom field's value is compared exactly")
    func customFieldExact() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Vary": "X-Variant"])
        _ = try await cache.get(["X-Variant": "a, b"])
        #expect(try await cache.get(["X-Variant": "a, b"]).source == .fresh)
        #expect(try await cache.get(["X-Variant": "a,b"]).source == .network)
        #expect(try await cache.get(["X-Variant": "A, B"]).source == .network)
    }

    @Test("RFC 9111 §4.1: an entry stored with the value as sent (before normalisation) still selects the normalised request")
    func entryStoredBeforeNormalisation() {
        let policy = ConditionalRequestPolicy()
        let entry = ETagCacheEntry(
            response: makeResponse("en", headers: ["ETag": "\"1\"", "Vary": "Accept-Language"]),
            varyingRequestHeaders: ["accept-language": "EN,fr"])
        #expect(policy.selects(entry, for: makeRequest("https://api.example.com/a", headers: ["Accept-Language": "en, fr"])))
        #expect(!policy.selects(entry, for: makeRequest("https://api.example.com/a", headers: ["Accept-Language": "fr, en"])))
    }

    @Test("RFC 9111 §4.1: identity fields named by Vary are compared as digests of the exact credential")
    func identityFieldsExact() {
        let policy = ConditionalRequestPolicy()
        let names = ["authorization"]
        let a = policy.varyingHeaders(of: makeRequest("https://a/", headers: ["Authorization": "Bearer Abc"]), names: names)
        let b = policy.varyingHeaders(of: makeRequest("https://a/", headers: ["Authorization": "Bearer abc"]), names: names)
        #expect(a != b && a["authorization"]?.count == 64)
    }
}
