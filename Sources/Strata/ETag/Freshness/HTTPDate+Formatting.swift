import Foundation

extension HTTPDate {
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday.
    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate (RFC 9110 §5.6.7), such as `Sun, 06 Nov 1994 08:49:37 GMT`,
    /// whole seconds rounded down; a date outside years 1–9999 is clamped to them.
    static func format(_ date: Date) -> String {
        // -62135596800 is 0001-01-01, 253402300799 is 9999-12-31 23:59:59.
        let raw = date.timeIntervalSince1970
        let seconds = raw.isNaN ? 0 : Int(min(max(raw.rounded(.down), -62_135_596_800), 253_402_300_799))
        let (year, month, day, secondOfDay) = civilDate(of: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
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
