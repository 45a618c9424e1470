import Foundation

/// One Redis command as the client sends it: a name and binary-safe arguments, encoded as a
/// RESP2 array of bulk strings (the only form a Redis server must accept from clients).
struct RedisCommand: Hashable, Sendable {
    /// The command name and its arguments, as sent.
    let arguments: [[UInt8]]

    /// Creates a command from its name and arguments; `Data` and `String` arguments are sent
    /// as their bytes (strings as UTF-8).
    init(_ name: String, _ arguments: RedisArgument...) {
        self.arguments = [Array(name.utf8)] + arguments.map(\.bytes)
    }

    /// Creates a command from its name and a list of arguments.
    init(_ name: String, arguments: [RedisArgument]) {
        self.arguments = [Array(name.utf8)] + arguments.map(\.bytes)
    }

    /// The command's name, the only part of a command that error messages and events show:
    /// arguments may hold a password (`AUTH`) or a stored response.
    var name: String { String(decoding: arguments.first ?? [], as: UTF8.self) }

    /// Appends the command's RESP2 encoding to `buffer`:
    /// `*<n>\r\n` then `$<length>\r\n<bytes>\r\n` per argument.
    func encode(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "*"))
        buffer.append(contentsOf: String(arguments.count).utf8)
        buffer.append(contentsOf: [13, 10])
        for argument in arguments {
            buffer.append(UInt8(ascii: "$"))
            buffer.append(contentsOf: String(argument.count).utf8)
            buffer.append(contentsOf: [13, 10])
            buffer.append(contentsOf: argument)
            buffer.append(contentsOf: [13, 10])
        }
    }
}

/// A command argument: text, an integer or raw bytes.
struct RedisArgument: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The argument's bytes as sent.
    let bytes: [UInt8]

    /// Text as UTF-8.
    init(_ text: String) { bytes = Array(text.utf8) }
    /// An integer in decimal, as Redis expects counts, cursors and milliseconds.
    init(_ number: Int) { bytes = Array(String(number).utf8) }
    /// Raw bytes, such as an encoded entry.
    init(_ data: Data) { bytes = Array(data) }
    /// Raw bytes.
    init(bytes: [UInt8]) { self.bytes = bytes }
    /// Text as UTF-8.
    init(stringLiteral text: String) { self.init(text) }
}
