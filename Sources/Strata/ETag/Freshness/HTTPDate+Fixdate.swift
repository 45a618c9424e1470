import Foundation

extension HTTPDate {
    /// ``parse(_:now:)`` with a fast path for the IMF-fixdate every server sends
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), read in place from its 29 bytes: a fresh hit reads a
    /// stored `Date` on every request. Anything else goes to the general parser.
    static func parseForFreshness(_ text: String, now: Date) -> Date? {
        var text = text
        if let date = text.withUTF8(fixdate) { return date }
        return parse(text.trimmingASCIIWhitespace(), now: now)
    }

    private static let fixdateDays: [[UInt8]] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let fixdateMonths: [[UInt8]] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }

    /// The date of an exact IMF-fixdate, or `nil` (then the general parser decides).
    private static func fixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
            bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
            fixdateDays.contains(where: { $0.elementsEqual(bytes[0..<3]) }),
            let monthIndex = fixdateMonths.firstIndex(where: { $0.elementsEqual(bytes[8..<11]) }),
            let day = digits(bytes, 5, 2), let year = digits(bytes, 12, 4), let hour = digits(bytes, 17, 2),
            let minute = digits(bytes, 20, 2), let second = digits(bytes, 23, 2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let month = monthIndex + 1
        let daysInMonth =
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        guard (1...daysInMonth).contains(day) else { return nil }
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }
}
