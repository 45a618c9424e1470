import Foundation
@testable import Strata
import Testing

@Suite("Cache-Control parsing and HTTP-date formatting for freshness")
struct CacheDirectivesTests {
    private func parse(_ values: String...) -> CacheDirectives {
        CacheDirectives(HTTPHeaders(values.map { ("Cache-Control", $0) }))
    }

    @Test("directives are read case-insensitively across fields, with arguments bare or quoted (§5.2)")
    func basicParsing() {
        let directives = parse("Max-Age=60, MUST-REVALIDATE", "stale-while-revalidate=\"30\", public", "no-cache=\"Set-Cookie, X\"")
        #expect(directives.maxAge == 60 && directives.mustRevalidate && directives.isPublic)
        #expect(directives.staleWhileRevalidate == 30 && directives.noCache)
        #expect(!directives.noStore && directives.staleIfError == nil)
    }

    @Test("§4.2.1 the first max-age wins; an invalid one is 0; §1.2.2 values past 2^31 are 2^31")
    func badInput() {
        #expect(parse("max-age=10, max-age=99").maxAge == 10)
        #expect(parse("max-age=ten").maxAge == 0)
        #expect(parse("max-age=").maxAge == 0)
        #expect(parse("max-age=99999999999999999999999").maxAge == CacheDirectives.maxDeltaSeconds)
        #expect(parse("max-age=-5").maxAge == 0)
        #expect(parse(",,, ,max-age = 7 ,").maxAge == 7)
        // An unterminated quoted argument runs to the end of the field.
        #expect(parse("no-cache=\"unterminated, max-age=5").maxAge == nil)
    }

    @Test("request directives: max-stale with and without a value, min-fresh, only-if-cached")
    func requestDirectives() {
        #expect(parse("max-stale").maxStale == CacheDirectives.maxDeltaSeconds)
        #expect(parse("max-stale=30").maxStale == 30)
        #expect(parse("max-stale=soon").maxStale == nil)
        let directives = parse("min-fresh=5, only-if-cached, stale-if-error=60")
        #expect(directives.minFresh == 5 && directives.onlyIfCached && directives.staleIfError == 60)
    }

    @Test("s-maxage (its value; an invalid one is 0), proxy-revalidate and private are parsed for shared storage")
    func sharedOnly() {
        let directives = parse("s-maxage=600, private, proxy-revalidate")
        #expect(directives.sharedMaxAge == 600 && directives.isPrivate && directives.proxyRevalidate && directives.maxAge == nil)
        #expect(parse("s-maxage=soon").sharedMaxAge == 0 && !parse("must-revalidate").proxyRevalidate)
    }

    @Test("HTTP-dates are written as IMF-fixdate and read back to the second")
    func dateFormatting() throws {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 86_399.5 * 777) {
            let date = Date(timeIntervalSince1970: seconds.rounded(.down))
            #expect(HTTPDate.parse(HTTPDate.format(date), now: date) == date)
        }
    }
}
