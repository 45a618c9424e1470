/// An incremental RESP2 reply parser: feed it bytes as they arrive with ``append(_:)``, take
/// complete replies with ``next()``. Pure (no I/O), so it can be fuzzed with any byte split.
///
/// The parser keeps partially received arrays on an explicit stack instead of re-parsing or
/// recursing, so its work is linear in the bytes received and its depth is bounded by
/// ``RESPLimits/maxDepth``. Every length is checked against ``RESPLimits`` as soon as its header
/// line arrives, before any of the bytes it announces are waited for, so a peer cannot make it
/// buffer more than the limits allow. After an error the parser is unusable, like the
/// connection it read from.
///
/// Grammar (https://redis.io/docs/latest/develop/reference/protocol-spec/, RESP2):
/// ```
/// +<text>\r\n        simple string (no CR or LF inside)
/// -<text>\r\n        error
/// :<int64>\r\n       integer
/// $<len>\r\n<len bytes>\r\n   bulk string; $-1\r\n is null
/// *<count>\r\n<count replies>  array; *-1\r\n is null
/// ```
struct RESPParser: Sendable {
    private struct OpenArray {
        var remaining: Int
        var elements: [RESPValue]
    }

    /// What one header line (plus a bulk string's bytes) turned out to be.
    private enum Element {
        case value(RESPValue)
        case arrayStart(count: Int)
    }

    /// The limits every reply is held to.
    let limits: RESPLimits
    private var buffer: [UInt8] = []
    private var position = 0
    private var openArrays: [OpenArray] = []
    private var replyBytes = 0

    /// Creates a parser with nothing buffered.
    init(limits: RESPLimits = RESPLimits()) {
        self.limits = limits
    }

    /// Whether bytes have arrived that are not yet part of a reply returned by ``next()``.
    var hasPartialReply: Bool { position < buffer.count || !openArrays.isEmpty }

    /// Adds bytes received from the server.
    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position >= 64 << 10 {
            // Drop consumed bytes now and then rather than on every call: one large reply
            // arrives in many reads.
            buffer.removeSubrange(0..<position)
            position = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``RESPParseError`` when the bytes are not RESP2 or break a limit.
    mutating func next() throws(RESPParseError) -> RESPValue? {
        while let (element, length) = try element(at: position) {
            position += length
            replyBytes += length
            var completed: RESPValue
            switch element {
            case .arrayStart(let count):
                guard openArrays.count < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
                // Capacity grows with the bytes that arrive, never with a declared count.
                openArrays.append(OpenArray(remaining: count, elements: []))
                continue
            case .value(let value):
                completed = value
            }
            while var innermost = openArrays.popLast() {
                innermost.elements.append(completed)
                innermost.remaining -= 1
                guard innermost.remaining == 0 else {
                    openArrays.append(innermost)
                    break
                }
                completed = .array(innermost.elements)
            }
            if openArrays.isEmpty {
                replyBytes = 0
                return completed
            }
        }
        return nil
    }

    /// The element starting at `start` and the bytes it takes, or `nil` when it has not fully
    /// arrived.
    private func element(at start: Int) throws(RESPParseError) -> (Element, Int)? {
        guard start < buffer.count else { return nil }
        guard let lineEnd = try lineEnd(after: start + 1) else { return nil }
        let line = buffer[(start + 1)..<lineEnd]
        let headerLength = lineEnd + 2 - start
        try checkReplySize(adding: headerLength)
        switch buffer[start] {
        case UInt8(ascii: "+"):
            return (.value(.simpleString(String(decoding: line, as: UTF8.self))), headerLength)
        case UInt8(ascii: "-"):
            return (.value(.error(String(decoding: line, as: UTF8.self))), headerLength)
        case UInt8(ascii: ":"):
            return (.value(.integer(try Self.integer(line))), headerLength)
        case UInt8(ascii: "$"):
            let length = try Self.integer(line)
            if length == -1 { return (.value(.bulkString(nil)), headerLength) }
            guard (0...Int64(limits.maxBulkBytes)).contains(length) else {
                throw .invalidBulkLength(length, limit: limits.maxBulkBytes)
            }
            let total = headerLength + Int(length) + 2
            try checkReplySize(adding: total)
            guard start + total <= buffer.count else { return nil }
            let dataEnd = lineEnd + 2 + Int(length)
            guard buffer[dataEnd] == 13, buffer[dataEnd + 1] == 10 else { throw .malformedLine }
            return (.value(.bulkString(Array(buffer[(lineEnd + 2)..<dataEnd]))), total)
        case UInt8(ascii: "*"):
            let count = try Self.integer(line)
            if count == -1 { return (.value(.array(nil)), headerLength) }
            guard (0...Int64(limits.maxArrayCount)).contains(count) else {
                throw .invalidArrayCount(count, limit: limits.maxArrayCount)
            }
            return count == 0 ? (.value(.array([])), headerLength) : (.arrayStart(count: Int(count)), headerLength)
        case let type:
            throw .unknownType(type)
        }
    }

    /// The index of the CR of the CRLF ending the line that starts at `start`, or `nil` when it
    /// has not arrived yet.
    private func lineEnd(after start: Int) throws(RESPParseError) -> Int? {
        let scanEnd = min(buffer.count, start + limits.maxLineBytes + 1)
        var index = start
        while index < scanEnd {
            switch buffer[index] {
            case 13:
                guard index + 1 < buffer.count else { return nil }
                guard buffer[index + 1] == 10 else { throw .malformedLine }
                return index
            case 10:
                throw .malformedLine
            default:
                index += 1
            }
        }
        guard buffer.count - start <= limits.maxLineBytes else { throw .lineTooLong(limit: limits.maxLineBytes) }
        return nil
    }

    private func checkReplySize(adding bytes: Int) throws(RESPParseError) {
        guard replyBytes + bytes <= limits.maxReplyBytes else { throw .replyTooLarge(limit: limits.maxReplyBytes) }
    }

    /// A signed decimal that fits in 64 bits: an optional `-` and 1 to 19 digits.
    private static func integer(_ line: ArraySlice<UInt8>) throws(RESPParseError) -> Int64 {
        let negative = line.first == UInt8(ascii: "-")
        let digits = negative ? line.dropFirst() : line
        guard (1...19).contains(digits.count) else { throw .invalidInteger }
        var value: Int64 = 0
        for byte in digits {
            guard (48...57).contains(byte) else { throw .invalidInteger }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(Int64(byte - 48))
            guard !overflow, !carry else { throw .invalidInteger }
            value = sum
        }
        return negative ? -value : value
    }
}
