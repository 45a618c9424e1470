@testable import StrataRedis
import Testing
import TestServer
import TestTraits

@Suite("RESPParser: RESP2 replies, fed in any split, within limits", .onOwnThread)
struct RESPParserTests {
    /// Parses `text` fed in one piece and returns every complete reply.
    private func replies(_ bytes: [UInt8], limits: RESPLimits = RESPLimits()) throws -> [RESPValue] {
        var parser = RESPParser(limits: limits)
        parser.append(bytes)
        var values: [RESPValue] = []
        while let value = try parser.next() { values.append(value) }
        return values
    }

    private func replies(_ text: String, limits: RESPLimits = RESPLimits()) throws -> [RESPValue] {
        try replies(Array(text.utf8), limits: limits)
    }

    private func parseError(_ text: String, limits: RESPLimits = RESPLimits()) -> RESPParseError? {
        do {
            _ = try replies(text, limits: limits)
            return nil
        } catch let error as RESPParseError {
            return error
        } catch {
            return nil
        }
    }

    @Test("each of the five RESP2 types, with null bulk strings and null arrays")
    func types() throws {
        #expect(try replies("+OK\r\n") == [.simpleString("OK")])
        #expect(try replies("-WRONGPASS invalid password\r\n") == [.error("WRONGPASS invalid password")])
        #expect(try replies(":-42\r\n:9223372036854775807\r\n") == [.integer(-42), .integer(.max)])
        #expect(
            try replies("$5\r\nhe\r\nl\r\n$0\r\n\r\n$-1\r\n")
                == [.bulkString(Array("he\r\nl".utf8)), .bulkString([]), .bulkString(nil)])
        #expect(try replies("*0\r\n*-1\r\n") == [.array([]), .array(nil)])
    }

    @Test("nested arrays, as SCAN answers, come back whole")
    func nestedArrays() throws {
        let scan = "*2\r\n$1\r\n0\r\n*2\r\n$3\r\nk:1\r\n$3\r\nk:2\r\n"
        #expect(
            try replies(scan) == [
                .array([
                    .bulkString(Array("0".utf8)),
                    .array([.bulkString(Array("k:1".utf8)), .bulkString(Array("k:2".utf8))]),
                ])
            ])
        #expect(try replies("*2\r\n*1\r\n:1\r\n*0\r\n:7\r\n") == [.array([.array([.integer(1)]), .array([])]), .integer(7)])
    }

    @Test("replies split at every possible byte boundary parse the same as in one piece")
    func everySplit() throws {
        let stream = Array("+OK\r\n*3\r\n$3\r\nabc\r\n:12\r\n*1\r\n$-1\r\n-ERR no\r\n$4\r\n\r\n\r\n\r\n".utf8)
        let whole = try replies(stream)
        #expect(whole.count == 4)
        for split in 1..<stream.count {
            var parser = RESPParser()
            var values: [RESPValue] = []
            parser.append(stream[..<split])
            while let value = try parser.next() { values.append(value) }
            parser.append(stream[split...])
            while let value = try parser.next() { values.append(value) }
            #expect(values == whole, "split at \(split)")
            #expect(!parser.hasPartialReply)
        }
    }

    @Test("a reply fed one byte at a time is returned only when its last byte arrives")
    func byteByByte() throws {
        let bytes = Array("*2\r\n$3\r\nfoo\r\n:1\r\n".utf8)
        var parser = RESPParser()
        for (index, byte) in bytes.enumerated() {
            parser.append([byte])
            let value = try parser.next()
            #expect((value != nil) == (index == bytes.count - 1))
        }
    }

    @Test("a bulk string longer than the limit is refused from its header, before its bytes arrive")
    func bulkLimit() {
        var limits = RESPLimits()
        limits.maxBulkBytes = 10
        #expect(parseError("$11\r\n", limits: limits) == .invalidBulkLength(11, limit: 10))
        #expect(parseError("$-2\r\n") == .invalidBulkLength(-2, limit: RESPLimits().maxBulkBytes))
        #expect((try? replies("$10\r\n0123456789\r\n", limits: limits)) == [.bulkString(Array("0123456789".utf8))])
    }

    @Test("array counts, nesting depth, line length and reply size are bounded")
    func structuralLimits() {
        var limits = RESPLimits()
        limits.maxArrayCount = 3
        limits.maxDepth = 2
        limits.maxLineBytes = 8
        limits.maxReplyBytes = 30
        #expect(parseError("*4\r\n", limits: limits) == .invalidArrayCount(4, limit: 3))
        #expect(parseError("*-5\r\n", limits: limits) == .invalidArrayCount(-5, limit: 3))
        #expect(parseError("*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits) == .tooDeep(limit: 2))
        #expect(parseError("+123456789", limits: limits) == .lineTooLong(limit: 8))
        #expect(parseError("*3\r\n$9\r\n123456789\r\n$9\r\n123456789\r\n", limits: limits) == .replyTooLarge(limit: 30))
        #expect(parseError("$50\r\n", limits: RESPLimits(maxBulkBytes: 100, maxReplyBytes: 40)) == .replyTooLarge(limit: 40))
    }

    @Test("bare CR or LF, a bulk string without its CRLF, bad integers and unknown types are errors")
    func malformed() {
        #expect(parseError("+O\nK\r\n") == .malformedLine)
        #expect(parseError("+O\rK\r\n") == .malformedLine)
        #expect(parseError("$3\r\nfooXY") == .malformedLine)
        #expect(parseError(":\r\n") == .invalidInteger)
        #expect(parseError(":12a\r\n") == .invalidInteger)
        #expect(parseError(":9223372036854775808\r\n") == .invalidInteger)
        #expect(parseError(":+5\r\n") == .invalidInteger)
        #expect(parseError("%1\r\n") == .unknownType(UInt8(ascii: "%")))
        #expect(parseError("HTTP/1.1 400 Bad Request\r\n") == .unknownType(UInt8(ascii: "H")))
    }

    @Test("random bytes in random splits never trap and never yield more replies than bytes (seeded fuzz)")
    func fuzz() {
        var generator = SeededGenerator(seed: 0x5EED_7E57)
        let alphabet = Array("+-:$*\r\n0123456789-abc".utf8)
        var limits = RESPLimits()
        limits.maxBulkBytes = 64
        limits.maxArrayCount = 8
        limits.maxReplyBytes = 256
        for _ in 0..<3_000 {
            let length = Int.random(in: 1...64, using: &generator)
            let input = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            var parser = RESPParser(limits: limits)
            var produced = 0
            var offset = 0
            parsing: while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...8, using: &generator))
                parser.append(input[offset..<end])
                offset = end
                do {
                    while try parser.next() != nil { produced += 1 }
                } catch {
                    break parsing
                }
            }
            #expect(produced <= input.count)
        }
    }
}
