/// Why bytes from a server are not a valid RESP2 reply within ``RESPLimits``. Any of these
/// leaves the connection in an unknown state, so it is closed.
enum RESPParseError: Error, Hashable, CustomStringConvertible {
    /// The first byte of a reply is not one of `+ - : $ *`.
    case unknownType(UInt8)
    /// A line holds a bare CR or LF, or a bulk string is not followed by CRLF.
    case malformedLine
    /// A length or integer line is not a decimal number that fits in 64 bits.
    case invalidInteger
    /// A line ran past ``RESPLimits/maxLineBytes`` without its CRLF.
    case lineTooLong(limit: Int)
    /// A bulk string declared more bytes than ``RESPLimits/maxBulkBytes``, or a negative length
    /// other than -1.
    case invalidBulkLength(Int64, limit: Int)
    /// An array declared more elements than ``RESPLimits/maxArrayCount``, or a negative count
    /// other than -1.
    case invalidArrayCount(Int64, limit: Int)
    /// Arrays nested deeper than ``RESPLimits/maxDepth``.
    case tooDeep(limit: Int)
    /// One reply took more than ``RESPLimits/maxReplyBytes`` bytes.
    case replyTooLarge(limit: Int)

    var description: String {
        switch self {
        case .unknownType(let byte): "a reply starts with byte 0x\(String(byte, radix: 16)), not a RESP2 type"
        case .malformedLine: "a reply line holds a bare CR or LF, or a bulk string lacks its CRLF"
        case .invalidInteger: "a length or integer is not a 64-bit decimal number"
        case .lineTooLong(let limit): "a reply line is longer than \(limit) bytes"
        case .invalidBulkLength(let length, let limit): "a bulk string declares \(length) bytes (limit \(limit))"
        case .invalidArrayCount(let count, let limit): "an array declares \(count) elements (limit \(limit))"
        case .tooDeep(let limit): "arrays nested deeper than \(limit)"
        case .replyTooLarge(let limit): "a reply is larger than \(limit) bytes"
        }
    }
}
