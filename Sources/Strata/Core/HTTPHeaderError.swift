import Foundation

/// A header field that must not be sent because it could inject or split HTTP messages.
public enum HTTPHeaderError: Error, Hashable, CustomStringConvertible {
    /// The name is empty or contains a character that is not allowed in a header name.
    case invalidName(String)
    /// The value of the named header contains a control character such as CR, LF or NUL.
    case invalidValue(name: String, byte: UInt8)

    /// What is wrong and how to fix it.
    public var description: String {
        switch self {
        case .invalidName(let name):
            "Invalid header name \(name.debugDescription): names must be non-empty RFC 9110 tokens "
                + "(letters, digits and !#$%&'*+-.^_`|~). The request was not sent."
        case .invalidValue(let name, let byte):
            "The value of header \(name.debugDescription) contains control byte 0x"
                + String(byte, radix: 16, uppercase: true)
                + " (CR, LF and NUL would let a value inject headers). Remove it; the request was not sent."
        }
    }
}

extension HTTPHeaderError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
