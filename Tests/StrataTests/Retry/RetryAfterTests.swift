import Foundation
import Strata
import Testing
import TestTraits

@Suite("Retry-After parsing", .onOwnThread)
struct RetryAfterTests {
    /// 37 seconds before RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT (784111777).
    let now = Date(timeIntervalSince1970: 784_111_777 - 37)

    @Test("delay-seconds is a non-negative integer, surrounding spaces ignored")
    func delaySeconds() {
        #expect(RetryAfter.seconds(from: "120", now: now) == 120)
        #expect(RetryAfter.seconds(from: "0", now: now) == 0)
        #expect(RetryAfter.seconds(from: " \t7 ", now: now) == 7)
    }

    @Test("a huge delay-seconds is valid (and then refused by maxRetryAfter), not a crash")
    func hugeDelaySeconds() {
        #expect(RetryAfter.seconds(from: "99999999999999999999999999", now: now) == 1e26)
    }

    @Test("IMF-fixdate", arguments: ["Sun, 06 Nov 1994 08:49:37 GMT"])
    func imfFixdate(value: String) {
        #expect(RetryAfter.seconds(from: value, now: now) == 37)
    }

    @Test("obsolete RFC 850 date")
    func rfc850() {
        #expect(RetryAfter.seconds(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 37)
    }

    @Test("RFC 850's two-digit year more than 50 years ahead is the previous century's")
    func rfc850TwoDigitYear() {
        let in2026 = Date(timeIntervalSince1970: 1_780_000_000) // 2026-05-28
        // "94" read as 2094 would be 68 years ahead, so it is 1994: in the past, retry now.
        #expect(RetryAfter.seconds(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: in2026) == 0)
        // "27" is 2027, less than 50 years ahead: a future date.
        let future = RetryAfter.seconds(from: "Friday, 15-Jan-27 08:00:00 GMT", now: in2026)
        #expect(future.map { $0 - 20_000_000 } == 0)
    }

    @Test("RFC 850's two-digit year up to 50 years ahead is the next century's when that is nearer")
    func rfc850TwoDigitYearCrossesCentury() {
        // In 1994, "09" is 2009 (15 years ahead), not 1909 (85 years back): found by fuzzing.
        let in1994 = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        let in2009 = 1_257_497_377.0 - 784_111_777 // Fri, 06 Nov 2009 08:49:37 GMT
        #expect(RetryAfter.seconds(from: "Friday, 06-Nov-09 08:49:37 GMT", now: in1994) == in2009)
    }

    @Test("RFC 850's 50-year line is drawn on the timestamp, to the second")
    func rfc850FiftyYearsToTheSecond() {
        let in1994 = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        // Exactly 50 years ahead is not *more* than 50: 2044, a future date.
        #expect((RetryAfter.seconds(from: "Sunday, 06-Nov-44 08:49:37 GMT", now: in1994) ?? 0) > 0)
        // One second more would be more than 50 years ahead, so it is 1944: in the past, retry now.
        #expect(RetryAfter.seconds(from: "Sunday, 06-Nov-44 08:49:38 GMT", now: in1994) == 0)
        // "45" is 1945, 49 years back.
        #expect(RetryAfter.seconds(from: "Tuesday, 06-Nov-45 08:49:37 GMT", now: in1994) == 0)
        // On 1 Jan 1970, "20" late in December is 1920: 2020-12-31 would be 51 years ahead.
        let epoch = Date(timeIntervalSince1970: 0)
        #expect(RetryAfter.seconds(from: "Thursday, 31-Dec-20 23:59:59 GMT", now: epoch) == 0)
        #expect((RetryAfter.seconds(from: "Wednesday, 01-Jan-20 00:00:00 GMT", now: epoch) ?? 0) > 0)
    }

    @Test("RFC 850's 29 February is checked against the century the 50-year rule chose")
    func rfc850LeapDayAcrossCenturies() {
        // In 1994, "00" is 2000 (a leap year), so 29 Feb exists; read as 1900 it would not.
        let in1994 = Date(timeIntervalSince1970: 784_111_777)
        #expect(RetryAfter.seconds(from: "Tuesday, 29-Feb-00 00:00:00 GMT", now: in1994) != nil)
        // In 2080, "00" is 2100 (not a leap year): there is no such day, so the value is malformed.
        let in2080 = Date(timeIntervalSince1970: 3_471_292_800) // 2080-01-01
        #expect(RetryAfter.seconds(from: "Monday, 29-Feb-00 00:00:00 GMT", now: in2080) == nil)
    }

    @Test("asctime, with the day padded by a space or not")
    func asctime() {
        #expect(RetryAfter.seconds(from: "Sun Nov  6 08:49:37 1994", now: now) == 37)
        #expect(RetryAfter.seconds(from: "Sun Nov 6 08:49:37 1994", now: now) == 37)
    }

    @Test(
        "RFC 9110 §5.6.7: Retry-After reads dates robustly, runs of spaces between elements and surrounding spaces accepted (only a cache's Expires is read strictly, RFC 9111 §5.3)",
        arguments: [
            "Sun, 06  Nov  1994 08:49:37 GMT",
            "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37  GMT",
            "Sunday,  06-Nov-94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Sun  Nov  6 08:49:37 1994",
            "Sun Nov  6  08:49:37 1994",
            "  Sun, 06 Nov 1994 08:49:37 GMT\t",
        ])
    func lenientDates(value: String) {
        #expect(RetryAfter.seconds(from: value, now: now) == 37)
    }

    @Test("a date in the past means now (0 seconds)")
    func pastDate() {
        let later = now.addingTimeInterval(3_600)
        #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: later) == 0)
    }

    @Test(
        "garbage and near misses are malformed",
        arguments: [
            "", "  ", "soon", "-1", "+5", "1.5", "5s", "0x10", "1e3",
            "Sun, 06 Nov 1994 08:49:37 UTC", // not GMT
            "sun, 06 nov 1994 08:49:37 GMT", // names are case-sensitive
            "Sunday, 06 Nov 1994 08:49:37 GMT", // long day name in IMF-fixdate
            "Sun, 06-Nov-94 08:49:37 GMT", // short day name in RFC 850
            "Sun, 31 Feb 1994 08:49:37 GMT", // no such day
            "Sun, 06 Nov 1994 24:00:00 GMT", // no such hour
            "Sun, 06 Nov 1994 08:60:00 GMT", // no such minute
            "Sun, 6 Nov 1994 08:49:37 GMT", // day must be two digits
            "Sun, 06 Nov 94 08:49:37 GMT", // year must be four digits
            "Sun, 06 Nov 1994 8:49:37 GMT", // hour must be two digits
            "Sun, 06 Nov 1994 08:49 GMT", // seconds missing
            "Sun Nov  6 08:49:37 94",
            "Sun, 06 Nov 1994 08:49:37 GMT extra",
        ])
    func malformed(value: String) {
        #expect(RetryAfter.seconds(from: value, now: now) == nil)
    }

    @Test("a leap second (60) and 29 February of a leap year are valid dates")
    func calendarEdges() {
        #expect(RetryAfter.seconds(from: "Sat, 31 Dec 2016 23:59:60 GMT", now: Date(timeIntervalSince1970: 0)) != nil)
        #expect(
            RetryAfter.seconds(from: "Tue, 29 Feb 2000 00:00:00 GMT", now: Date(timeIntervalSince1970: 0))
                == 951_782_400)
        #expect(RetryAfter.seconds(from: "Thu, 29 Feb 1900 00:00:00 GMT", now: now) == nil)
    }

    /// Found by the `retry-after` fuzz target's differential against ICU, whose calendar is
    /// Julian before October 1582: HTTP-dates are proleptic Gregorian (RFC 5322 §3.3), so the
    /// year 997 date below is -30,678,102,623 s (Python's datetime agrees), five days from ICU's.
    @Test("a date before the Gregorian reform is read in the proleptic Gregorian calendar")
    func prolepticGregorian() {
        let before = Date(timeIntervalSince1970: -30_678_102_623 - 10)
        #expect(RetryAfter.seconds(from: "Sun, 06 Nov 0997 08:49:37 GMT", now: before) == 10)
    }

    @Test("a value longer than maxLength is refused without being parsed")
    func tooLong() {
        let padded = "Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: RetryAfter.maxLength)
        #expect(RetryAfter.seconds(from: padded, now: now) == nil)
    }

    @Test("random byte strings never crash the parser and never give a negative delay")
    func fuzz() {
        var random = RetryFixtures.SeededRandom(seed: 7)
        let alphabet = Array("0123456789 ,:-+.SunMoTeWdhFrSaJaFbMrApyJlAgSpOcNvDGMT\t\u{0}é")
        for _ in 0..<5_000 {
            let length = Int(random.next() * 40)
            let text = String((0..<length).map { _ in alphabet[Int(random.next() * Double(alphabet.count))] })
            if let seconds = RetryAfter.seconds(from: text, now: now) { #expect(seconds >= 0) }
        }
    }
}
