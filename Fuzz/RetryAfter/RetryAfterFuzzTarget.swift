// Fuzz target `retry-after` (scripts/fuzz.sh): RetryAfter and the HTTP-date parser behind it,
// compiled into the Strata module so it reaches the internal HTTPDate.
//
// Input: byte 0 picks "now", the rest is the header value. Properties checked on every input:
// 1. Parsing never crashes; a result is a finite number of seconds, never negative.
// 2. Round trip: a date HTTPDate accepted, written as an IMF-fixdate, parses to the same date.
// 3. Differential: an IMF-fixdate from 1583 on that both HTTPDate and Foundation's DateFormatter
//    (ICU, strict, en_US_POSIX, GMT) read means the same instant to both. Earlier dates differ by
//    design: HTTP-dates are proleptic Gregorian (RFC 5322 §3.3), ICU's calendar is Julian before
//    October 1582 (this harness's first finding: "06 Nov 0997" is 5 days apart).
// 4. RFC 850's two-digit years land within 50 calendar years of "now" (RFC 9110 §5.6.7): in
//    (now - 50 years, now + 50 years], which is ±50.003 years of 365.2425 days at most.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// "Now" values: the epoch, the RFC's example date, 2026, and 2100 (a century boundary).
private let nows: [Double] = [0, 784_111_777, 1_767_225_600, 4_102_444_800]
private let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/// `date` as an IMF-fixdate, computed with glibc's gmtime_r (not with the code under test).
private func imfFixdate(_ date: Date) -> String? {
    var time = time_t(date.timeIntervalSince1970)
    var parts = tm()
    guard gmtime_r(&time, &parts) != nil else { return nil }
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(parts.tm_year + 1900)
    return "\(dayNames[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(monthNames[Int(parts.tm_mon)]) "
        + String(repeating: "0", count: max(0, 4 - year.count)) + year
        + " \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}

/// ICU's reading of IMF-fixdates, strict; the fuzzer runs on one thread.
nonisolated(unsafe) private let icu: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    formatter.isLenient = false
    return formatter
}()

func fuzz(_ input: inout FuzzInput) {
    let now = Date(timeIntervalSince1970: nows[Int(input.byte()) % nows.count])
    let text = String(decoding: input.rest(), as: UTF8.self)

    if let seconds = RetryAfter.seconds(from: text, now: now) {
        fuzzCheck(seconds.isFinite && seconds >= 0, "Retry-After '\(text)' gave \(seconds) s")
    }
    guard let date = HTTPDate.parse(text, now: now) else { return }

    guard let written = imfFixdate(date) else { return fuzzCheck(false, "gmtime_r refused \(date) from '\(text)'") }
    fuzzCheck(HTTPDate.parse(written, now: now) == date, "'\(text)' is \(date), written '\(written)', which parses differently")

    let parts = text.split(separator: " ")
    if parts.count == 6, let year = Int(parts[3]), year >= 1583, let other = icu.date(from: text) {
        fuzzCheck(other == date, "'\(text)': HTTPDate says \(date.timeIntervalSince1970), ICU \(other.timeIntervalSince1970)")
    }
    if parts.count == 4 {
        let years = date.timeIntervalSince(now) / (365.2425 * 86_400)
        fuzzCheck(years > -50.003 && years <= 50.003, "RFC 850 date '\(text)' is \(years) years from \(now)")
    }
}
