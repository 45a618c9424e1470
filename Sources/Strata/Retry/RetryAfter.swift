import Foundation

/// The `Retry-After` response header (RFC 9110 §10.2.3) as a number of seconds to wait.
///
/// A pure parser over the header's text, so it can be tested and fuzzed without a clock.
package enum RetryAfter {
    /// The longest header value read, in bytes. The longest valid form (an RFC 850 date with
    /// "Wednesday") is 37 bytes; anything much longer is not a `Retry-After`.
    package static let maxLength = 64

    /// The number of seconds `value` asks the client to wait, or `nil` when it is malformed.
    ///
    /// Accepts `delay-seconds` (a non-negative integer: `120`; no sign, fraction or unit) and the
    /// three HTTP-date forms of RFC 9110 §5.6.7: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
    /// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`, read
    /// robustly as RFC 9110 §5.6.7 encourages (`HTTPDate.Reading.lenient`): runs of spaces
    /// between elements, and asctime's day padded or not (`Nov 6`). Only a cache's `Expires`
    /// must read an invalid date as expired (RFC 9111 §5.3); a server's `Retry-After` means its
    /// date however it is spaced. A date at or before `now` means "now" (0). RFC 850's two-digit year names the date within 50
    /// years of `now` either side, more than 50 years ahead being the previous century's: in 1994,
    /// "09" is 2009 and "45" is 1945. Surrounding spaces and tabs are ignored.
    ///
    /// - Parameters:
    ///   - value: The header's value.
    ///   - now: The current time, for HTTP-dates.
    /// - Returns: Seconds, at least 0, or `nil` for a malformed value (the caller then uses its
    ///   own backoff).
    package static func seconds(from value: String, now: Date) -> Double? {
        guard value.utf8.count <= maxLength else { return nil }
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Digits only: Double never overflows here (at most 64 digits), and a huge value is
            // a valid request for patience that maxRetryAfter then refuses.
            return Double(trimmed)
        }
        guard let date = HTTPDate.parse(trimmed, now: now, reading: .lenient) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
