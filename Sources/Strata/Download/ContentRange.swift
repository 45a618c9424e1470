/// The `Content-Range` of a single-part `206` or of a `416` (RFC 9110 §14.4):
/// `bytes 100-199/1000`, `bytes 100-199/*`, or `bytes */1000`.
struct ContentRange: Hashable, Sendable {
    /// The bytes the body carries; `nil` in a `416`'s `bytes */length`.
    var range: ClosedRange<Int64>?
    /// The representation's whole length; `nil` for `*` (unknown to the server).
    var completeLength: Int64?

    /// The most digits read in a position or length: 18 always fit an `Int64`, and no file
    /// comes near 10^18 bytes.
    static let maxDigits = 18

    /// Creates a range from its parts.
    init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses a field value; `nil` when it is not a byte range the RFC allows (another unit, a
    /// last position before the first, a range past the complete length, a sign or a space
    /// inside a number).
    init?(_ field: String) {
        let text = field.trimmingASCIIWhitespace()
        // §14.1: the range unit is case-insensitive; one space separates it (SP in the grammar).
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = text.dropFirst(6)
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let rangePart = spec[..<slash]
        let lengthPart = spec[spec.index(after: slash)...]
        if lengthPart == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(lengthPart) else { return nil }
            completeLength = length
        }
        if rangePart == "*" {
            // unsatisfied-range = "*/" complete-length: only with a length.
            guard completeLength != nil else { return nil }
            range = nil
            return
        }
        let bounds = rangePart.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last
        else { return nil }
        // §14.4: a range whose last position is not below the complete length is invalid.
        if let completeLength, last >= completeLength { return nil }
        range = first...last
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= maxDigits, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}
