import Foundation
@testable import Strata
import Testing

/// `Expires` read end to end through the scripted origin, which dates its response at the
/// harness's epoch (Tue, 14 Nov 2023 22:13:20 GMT): an `Expires` of 22:18:20 that parses gives
/// five minutes of freshness, and one that does not gives none.
@Suite("ETagTransport reads Expires as strictly as the HTTP-date grammar, on an injected clock")
struct ExpiresParsingTests {
    @Test(
        "RFC 9110 §5.6.7: an Expires in any of the three HTTP-date formats gives the response its lifetime",
        arguments: [
            "Tue, 14 Nov 2023 22:18:20 GMT", // IMF-fixdate
            "Tuesday, 14-Nov-23 22:18:20 GMT", // obsolete RFC 850
            "Tue Nov 14 22:18:20 2023", // asctime, two-digit day
            "Mon Aug  8 02:01:18 2050", // asctime, one-digit day padded by a space
        ])
    func threeFormats(expires: String) async throws {
        let cache = CacheHarness(headers: ["Expires": expires])
        _ = try await cache.get()
        cache.advance(299)
        #expect(try await cache.get().source == .fresh)
        #expect(cache.origin.requests == 1)
    }

    @Test(
        "RFC 9111 §5.3: an Expires that is not an HTTP-date (doubled spaces, no padding, another zone) is in the past: revalidated at once",
        arguments: [
            "Tue, 14  Nov  2023 22:18:20 GMT", // doubled spaces (cache-tests.fyi freshness-expires-invalid-multiple-spaces)
            "Tue,  14 Nov 2023 22:18:20 GMT",
            "Mon Aug 8 02:01:18 2050", // asctime's one-digit day without its padding space
            "Tue, 14 Nov 2023 22:18:20 UTC",
            "Tue 14 Nov 2023 22:18:20 GMT", // no comma
            "Tue, 14-Nov-2023 22:18:20 GMT", // dashes in an IMF-fixdate
            "Tue, 14 Nov 2023 22.18.20 GMT",
        ])
    func invalidIsPast(expires: String) async throws {
        let cache = CacheHarness(headers: ["Expires": expires])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
        #expect(cache.origin.counts == (1, 1))
    }
}
