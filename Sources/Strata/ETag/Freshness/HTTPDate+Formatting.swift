import Foundation

extension HTTPDate {
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday.
    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate (RFC 9110 §5.6.7), such as `Sun, 06 Nov 1994 08:49:37 GMT`,
    /// whole seconds rounded down; a date outside years 1–9999 is clamped to them.
    static func format(_ date: Date) -> String {
        // -62135596800 is 0001-01-01, 253402300799 is 9999-12-31 23:59:59.
        let raw = date.timeIntervalSince1970
        let seconds = raw.isNaN ? 0 : Int(min(max(raw.rounded(.down), -62_135_596_800), 253_402_300_799))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days, as HTTPDate's parser uses in reverse.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = dayNames[((days % 7) + 7) % 7]
        return "\(weekday), \(twoDigits(day)) \(monthAbbreviations[month - 1]) \(fourDigits(year)) "
            + "\(twoDigits(secondOfDay / 3_600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func fourDigits(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
