/// One RESP2 reply from a Redis server: the five types of the Redis serialization protocol,
/// version 2 (the protocol every Redis speaks until a client asks for RESP3 with `HELLO 3`,
/// which this client never does).
enum RESPValue: Hashable, Sendable {
    /// `+OK`: a short status line.
    case simpleString(String)
    /// `-ERR …`: the server refused the command; the text starts with an error code such as
    /// `ERR`, `WRONGTYPE`, `NOAUTH` or `OOM`.
    case error(String)
    /// `:42`.
    case integer(Int64)
    /// `$3\r\nfoo`: binary-safe bytes; `nil` is the null bulk string (`$-1`), a missing key.
    case bulkString([UInt8]?)
    /// `*2\r\n…`: nested replies; `nil` is the null array (`*-1`).
    case array([RESPValue]?)
}

extension RESPValue {
    /// The error code of an error reply (its first word, such as `WRONGPASS`), else `nil`.
    var errorCode: String? {
        guard case .error(let text) = self else { return nil }
        return String(text.prefix { $0 != " " })
    }
}
