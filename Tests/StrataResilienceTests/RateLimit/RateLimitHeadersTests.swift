import Foundation
import Strata
@testable import StrataResilience
import Testing
import TestTraits

@Suite("RateLimitHeaders reads every rate-limit format into a hold, or nothing")
struct RateLimitHeadersTests {
    /// A fixed wall-clock time: 2025-06-15T15:06:40Z.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// One row of a table: a status, the response's fields, and the hold they ask for.
    struct Row: Sendable, CustomTestStringConvertible {
        var status = 200
        var fields: [(String, String)]
        var expected: RateLimitHold?
        var testDescription: String { "\(status) \(fields.map { "\($0.0): \($0.1)" }.joined(separator: " | "))" }
    }

    private static func hold(_ row: Row) -> RateLimitHold? {
        RateLimitHeaders.hold(statusCode: row.status, headers: HTTPHeaders(row.fields), now: now)
    }

    private static func held(_ seconds: Double, _ source: RateLimitSource) -> RateLimitHold {
        RateLimitHold(duration: .seconds(seconds), source: source)
    }

    static let retryAfterRows: [Row] = [
        Row(status: 429, fields: [("Retry-After", "2")], expected: held(2, .retryAfter)),
        Row(status: 503, fields: [("Retry-After", " 120 ")], expected: held(120, .retryAfter)),
        Row(status: 429, fields: [("Retry-After", "Sun, 15 Jun 2025 15:07:10 GMT")], expected: held(30, .retryAfter)),
        // A date in the past, or zero, means "now": nothing to hold.
        Row(status: 429, fields: [("Retry-After", "Sun, 15 Jun 2025 15:00:00 GMT")], expected: nil),
        Row(status: 429, fields: [("Retry-After", "0")], expected: nil),
        // Only a 429 or 503 gives Retry-After a meaning for the rate limit.
        Row(status: 200, fields: [("Retry-After", "2")], expected: nil),
        Row(status: 301, fields: [("Retry-After", "2")], expected: nil),
        Row(status: 429, fields: [("Retry-After", "-5")], expected: nil),
        Row(status: 429, fields: [("Retry-After", "2.5")], expected: nil),
        Row(status: 429, fields: [("Retry-After", "soon")], expected: nil),
        Row(status: 429, fields: [("Retry-After", String(repeating: "9", count: 65))], expected: nil),
        // Huge but valid: read as asked, the policy's maxHold cuts it.
        Row(status: 429, fields: [("Retry-After", "31536000")], expected: held(31_536_000, .retryAfter)),
        Row(status: 429, fields: [("Retry-After", String(repeating: "9", count: 40))], expected: held(86_400 * 366, .retryAfter)),
    ]

    @Test(
        "Retry-After on a 429 or 503, as seconds or an HTTP-date; past, zero, other statuses and garbage hold nothing",
        arguments: retryAfterRows)
    func retryAfter(row: Row) {
        #expect(Self.hold(row) == row.expected)
    }

    static let currentDraftRows: [Row] = [
        Row(fields: [("RateLimit", #""default";r=0;t=30"#)], expected: held(30, .rateLimit)),
        Row(status: 429, fields: [("RateLimit", #""default";r=0;t=5"#)], expected: held(5, .rateLimit)),
        Row(fields: [("RateLimit", #""default";r=50;t=30"#)], expected: nil),
        // Several policies: hold until the latest reset among the exhausted ones.
        Row(fields: [("RateLimit", #""burst";r=0;t=5, "day";r=0;t=3600, "hour";r=10;t=60"#)], expected: held(3_600, .rateLimit)),
        Row(fields: [("RateLimit", #""burst";r=0;t=5, "hour";r=3;t=100"#)], expected: held(5, .rateLimit)),
        Row(fields: [("RateLimit", #""a";r=0;t=5"#), ("RateLimit", #""b";r=0;t=9"#)], expected: held(9, .rateLimit)),
        // Without t, the policy's window from RateLimit-Policy is the longest the reset can be away.
        Row(
            fields: [("RateLimit-Policy", #""default";q=100;w=60, "day";q=1000;w=86400"#), ("RateLimit", #""default";r=0"#)],
            expected: held(60, .rateLimit)),
        Row(fields: [("RateLimit", #""default";r=0"#)], expected: nil),
        Row(fields: [("RateLimit-Policy", #""other";q=100;w=60"#), ("RateLimit", #""default";r=0"#)], expected: nil),
        // Leniently, a token as the policy name; spaces after ';' and around ',' as RFC 9651 allows.
        Row(fields: [("RateLimit", "default; r=0; t=7 ,  other;r=1;t=1")], expected: held(7, .rateLimit)),
        // Extra parameters (pk, a byte sequence; unknown keys) are skipped.
        Row(fields: [("RateLimit", #""default";r=0;t=8;pk=:cHJpdmF0ZQ==:;x=?1;y=1.5"#)], expected: held(8, .rateLimit)),
        // Negative or non-integer values make that policy say nothing.
        Row(fields: [("RateLimit", #""x";r=0;t=-5"#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=-1;t=5"#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=zero;t=5"#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=0;t="5""#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=0;t=5.0"#)], expected: nil),
        Row(fields: [("RateLimit", #""bad";r=0;t=-1, "good";r=0;t=4"#)], expected: held(4, .rateLimit)),
        // A syntax error anywhere ignores the whole field (RFC 9651 §4.2).
        Row(fields: [("RateLimit", #""x";r=0;t=5,"#)], expected: nil),
        Row(fields: [("RateLimit", #""x;r=0;t=5"#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=0;t=5 junk"#)], expected: nil),
        Row(fields: [("RateLimit", #"("x" "y");r=0;t=5"#)], expected: nil),
        Row(fields: [("RateLimit", "")], expected: nil),
        // 15 digits is the longest Integer; 16 is malformed.
        Row(fields: [("RateLimit", #""x";r=0;t=999999999999999"#)], expected: held(86_400 * 366, .rateLimit)),
        Row(fields: [("RateLimit", #""x";r=0;t=9999999999999999"#)], expected: nil),
        Row(fields: [("RateLimit", #""x";r=0;t=5;pad=""# + String(repeating: "a", count: 1_024) + #"""#)], expected: nil),
    ]

    @Test(
        "the current draft's RateLimit list: the latest reset among exhausted policies, RateLimit-Policy's window without t",
        arguments: currentDraftRows)
    func currentDraft(row: Row) {
        #expect(Self.hold(row) == row.expected)
    }

    static let earlierDraftRows: [Row] = [
        Row(fields: [("RateLimit", "limit=100, remaining=0, reset=30")], expected: held(30, .rateLimit)),
        Row(fields: [("RateLimit", "limit=100, remaining=7, reset=30")], expected: nil),
        Row(fields: [("RateLimit", "limit=100, remaining=0")], expected: nil),
        Row(fields: [("RateLimit", "limit=100, remaining=-1, reset=30")], expected: nil),
        Row(fields: [("RateLimit", "limit=100, remaining=0, reset=soon")], expected: nil),
        Row(fields: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "30")], expected: held(30, .rateLimitReset)),
        Row(fields: [("RateLimit-Remaining", "1"), ("RateLimit-Reset", "30")], expected: nil),
        Row(fields: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "-30")], expected: nil),
        Row(fields: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "30s")], expected: nil),
        Row(fields: [("RateLimit-Remaining", "none"), ("RateLimit-Reset", "30")], expected: nil),
        Row(fields: [("RateLimit-Reset", "30")], expected: nil),
    ]

    @Test(
        "the earlier drafts: the RateLimit dictionary and the separate RateLimit-Remaining and RateLimit-Reset", arguments: earlierDraftRows
    )
    func earlierDrafts(row: Row) {
        #expect(Self.hold(row) == row.expected)
    }

    static let xRateLimitRows: [Row] = [
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "60")], expected: held(60, .xRateLimitReset)),
        // Above 10⁹, a Unix time (as GitHub sends): 90 s after `now`.
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1750000090")], expected: held(90, .xRateLimitReset)),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1750000000.5")], expected: held(0.5, .xRateLimitReset)),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1749999000")], expected: nil),
        // At 10⁹ and below, a delay (clamped like any other to 366 days).
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1000000000")], expected: held(86_400 * 366, .xRateLimitReset)),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "0")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "4999"), ("X-RateLimit-Reset", "1750000090")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "-1")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1e9")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "0x10")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "60.")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", String(repeating: "1", count: 65))], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "-1"), ("X-RateLimit-Reset", "60")], expected: nil),
        Row(fields: [("X-RateLimit-Remaining", "0")], expected: nil),
    ]

    @Test("X-RateLimit-Remaining and X-RateLimit-Reset, the reset as a delay or, above 10⁹, a Unix time", arguments: xRateLimitRows)
    func xRateLimit(row: Row) {
        #expect(Self.hold(row) == row.expected)
    }

    static let precedenceRows: [Row] = [
        // Retry-After answers for this very response.
        Row(status: 429, fields: [("Retry-After", "2"), ("RateLimit", #""d";r=0;t=30"#)], expected: held(2, .retryAfter)),
        Row(status: 429, fields: [("Retry-After", "bogus"), ("RateLimit", #""d";r=0;t=30"#)], expected: held(30, .rateLimit)),
        // The first family present and well formed decides, even when it says the window is open.
        Row(fields: [("RateLimit", #""d";r=5;t=30"#), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "30")], expected: nil),
        Row(
            fields: [("RateLimit", #""d";r=zero"#), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "30")],
            expected: held(30, .xRateLimitReset)),
        Row(
            fields: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "3"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "30")],
            expected: held(3, .rateLimitReset)),
    ]

    @Test(
        "Retry-After first, then RateLimit, then RateLimit-Reset, then X-RateLimit-Reset: the first well-formed one decides",
        arguments: precedenceRows)
    func precedence(row: Row) {
        #expect(Self.hold(row) == row.expected)
    }

    @Test("a response with no rate-limit fields, or a wall clock never read without a date, holds nothing")
    func nothing() {
        #expect(RateLimitHeaders.hold(statusCode: 429, headers: ["Content-Type": "text/plain"], now: Self.now) == nil)
        #expect(RateLimitHeaders.hold(statusCode: 200, headers: [:], now: Self.now) == nil)
    }

    @Test("random bytes in every field never trap, and every hold they give is positive and bounded", .onOwnThread)
    func randomInput() {
        let alphabet = Array(#"0123456789-.;=,: "?*()\\abcdefrtwq"#.utf8) + [0x7F, 0xC3, 0xA9, 0x09]
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        let names = [
            "Retry-After", "RateLimit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
        ]
        for _ in 0..<3_000 {
            var fields: [(String, String)] = []
            for name in names where next() % 2 == 0 {
                let bytes = (0..<Int(next() % 40)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
                fields.append((name, String(decoding: bytes, as: UTF8.self)))
            }
            let hold = RateLimitHeaders.hold(statusCode: next() % 2 == 0 ? 429 : 200, headers: HTTPHeaders(fields), now: Self.now)
            if let hold { #expect(hold.duration > .zero && hold.duration <= RateLimitHeaders.longestHold, "\(fields)") }
        }
    }
}
