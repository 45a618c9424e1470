/// The one rule, for HTTP/1.1 and HTTP/2 alike, for what a response's status code is, so a
/// server cannot get past one protocol a status the other refuses (issue 27).
///
/// A status code is exactly three ASCII digits (RFC 9110 §15 `status-code = 3DIGIT`, carried in
/// the status line by RFC 9112 §4 and in `:status` by RFC 9113 §8.3.2) with a value in 100–599
/// (RFC 9110 §15: "values outside the range 100..599 are invalid"). What each protocol does with
/// a valid code (skipping interim `1xx`, refusing `101`) stays with that protocol.
enum HTTPStatusCodeRule {
    /// RFC 9110 §15: the only valid status codes.
    static let validCodes = 100...599
    /// RFC 9110 §15: `status-code = 3DIGIT`.
    static let digitCount = 3
    /// How many bytes of a refused value an error message shows: a status is no secret, but the
    /// bytes are whatever the server sent, so only a few, with anything unprintable escaped.
    static let maxShownBytes = 8

    /// Why a value is not a status code.
    enum Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The value is not exactly three ASCII digits; `shown` is its start, quoted and escaped.
        case notThreeDigits(shown: String)
        /// Three digits outside 100–599; `shown` is the value as sent, quoted.
        case outOfRange(shown: String)

        /// What was wrong, naming the value.
        var description: String {
            switch self {
            case let .notThreeDigits(shown):
                "the status code \(shown) is not three digits (RFC 9110 §15)"
            case let .outOfRange(shown):
                "the status code \(shown) is outside 100–599 (RFC 9110 §15)"
            }
        }
    }

    /// Reads `value` as a status code.
    ///
    /// - Returns: The code, 100 to 599.
    /// - Throws: ``Violation`` when `value` is not three ASCII digits or is outside 100–599.
    static func statusCode(_ value: some Collection<UInt8>) throws(Violation) -> Int {
        guard value.count == digitCount, value.allSatisfy(HTTPGrammar.isDigit) else {
            throw .notThreeDigits(shown: shown(value))
        }
        let code = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard validCodes.contains(code) else { throw .outOfRange(shown: shown(value)) }
        return code
    }

    /// Up to ``maxShownBytes`` of a refused `value`, quoted, unprintable bytes escaped.
    static func shown(_ value: some Collection<UInt8>) -> String {
        HTTPGrammar.excerpt(value, limit: maxShownBytes)
    }
}
