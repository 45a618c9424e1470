import Foundation

/// A parser for the three HTTP-date forms of RFC 9110 §5.6.7, independent of locale and of
/// `DateFormatter`. Names are case-sensitive, as the RFC's grammar says.
enum HTTPDate {
    private static let shortDayNames: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames: Set<Substring> =
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames: [Substring] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// How closely a date is read to the grammar.
    enum Reading {
        /// Elements are separated by exactly one space, and only asctime's one-digit day is
        /// padded by a second (`Nov  6`); `Nov 6`, doubled spaces, tabs or surrounding spaces
        /// are not an HTTP-date. For the cache's freshness fields: a cache must read an invalid
        /// `Expires` as a time in the past (RFC 9111 §5.3), so a lenient reading would keep a
        /// response fresh that the grammar says has expired.
        case strict
        /// Elements are separated by runs of spaces, and asctime's day has one or two digits,
        /// padded or not (`Nov 6`, `Nov  6`, `Nov 06`). RFC 9110 §5.6.7 encourages recipients to
        /// be robust in parsing timestamps unless a field's definition restricts it; for
        /// `Retry-After`, a date read leniently is still the date the server meant.
        case lenient
    }

    /// The date `text` names, or `nil` if it is not an HTTP-date as `reading` reads one.
    /// Callers trim the field's surrounding whitespace first.
    ///
    /// - Parameters:
    ///   - now: Needed only for RFC 850's two-digit years.
    ///   - reading: How closely to follow the grammar. Default: ``Reading/strict``.
    static func parse(_ text: String, now: Date, reading: Reading = .strict) -> Date? {
        if reading == .lenient {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            switch parts.count {
            case 6 where parts[0].hasSuffix(","): return imfFixdate(parts)
            case 4 where parts[0].hasSuffix(","): return rfc850(parts, now: now)
            case 5: return asctime(parts, dayDigits: 1...2)
            default: return nil
            }
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        switch parts.count {
        case 6 where parts[0].hasSuffix(","):
            return imfFixdate(parts)
        case 4 where parts[0].hasSuffix(","):
            return rfc850(parts, now: now)
        case 5:
            // `date3 = month SP ( 2DIGIT / ( SP DIGIT ))`: a two-digit day.
            return asctime(parts, dayDigits: 2...2)
        case 6 where parts[2].isEmpty:
            // The same, a one-digit day after the padding space: `Sun Nov  6 08:49:37 1994`.
            return asctime([parts[0], parts[1], parts[3], parts[4], parts[5]], dayDigits: 1...1)
        default:
            return nil
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ parts: [Substring]) -> Date? {
        guard shortDayNames.contains(parts[0].dropLast()), parts[5] == "GMT",
            let day = number(parts[1], digits: 2...2), let month = month(parts[2]),
            let year = number(parts[3], digits: 4...4), let second = secondOfDay(parts[4])
        else { return nil }
        return date(year: year, month: month, day: day, second: second)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ parts: [Substring], now: Date) -> Date? {
        let fields = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard longDayNames.contains(parts[0].dropLast()), parts[3] == "GMT", fields.count == 3,
            let day = number(fields[0], digits: 2...2), let month = month(fields[1]),
            let twoDigitYear = number(fields[2], digits: 2...2),
            let second = secondOfDay(parts[2])
        else { return nil }
        // RFC 9110 §5.6.7: a timestamp that would be more than 50 years in the future is the most
        // recent past year with the same last two digits; any other is read forward. So the date
        // falls in (now - 50 years, now + 50 years], compared as calendar fields, before the day
        // is checked against the chosen year's calendar (29 Feb exists in 2000, not in 1900).
        // In 1994, "09" is 2009, not 1909.
        let today = civilDate(of: now)
        var year = today.year - today.year % 100 + twoDigitYear
        if (year, month, day, second) > (today.year + 50, today.month, today.day, today.second) {
            year -= 100
        } else if (year, month, day, second) <= (today.year - 50, today.month, today.day, today.second) {
            year += 100
        }
        return date(year: year, month: month, day: day, second: second)
    }

    /// `Sun Nov  6 08:49:37 1994` (`parts` without the padding space), its day of `dayDigits` digits.
    private static func asctime(_ parts: [Substring], dayDigits: ClosedRange<Int>) -> Date? {
        guard shortDayNames.contains(parts[0]), let month = month(parts[1]),
            let day = number(parts[2], digits: dayDigits), let year = number(parts[4], digits: 4...4),
            let second = secondOfDay(parts[3])
        else { return nil }
        return date(year: year, month: month, day: day, second: second)
    }

    /// `HH:MM:SS` as seconds since midnight (second 60 allowed for a leap second).
    private static func secondOfDay(_ time: Substring) -> Int? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3,
            let hour = number(fields[0], digits: 2...2), hour < 24,
            let minute = number(fields[1], digits: 2...2), minute < 60,
            let second = number(fields[2], digits: 2...2), second <= 60
        else { return nil }
        return hour * 3_600 + minute * 60 + second
    }

    /// Combines validated fields with a second of the day, or `nil` when the day does not exist.
    private static func date(year: Int, month: Int, day: Int, second: Int) -> Date? {
        guard (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        return Date(timeIntervalSince1970: Double(daysSince1970(year: year, month: month, day: day) * 86_400 + second))
    }

    private static func month(_ name: Substring) -> Int? {
        monthNames.firstIndex(of: name).map { $0 + 1 }
    }

    /// A decimal of an allowed number of ASCII digits, without sign or spaces.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The UTC calendar date of `date` and its second of the day (Howard Hinnant's
    /// `civil_from_days`).
    static func civilDate(of date: Date) -> (year: Int, month: Int, day: Int, second: Int) {
        // Dates beyond ±10¹² days (or NaN) cannot come from a clock; clamp so Int() cannot trap.
        let rawSeconds = date.timeIntervalSince1970.rounded(.down)
        let seconds = rawSeconds.isNaN ? 0 : Int(min(max(rawSeconds, -8.64e16), 8.64e16))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, seconds - days * 86_400)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
