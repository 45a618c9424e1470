import Foundation
@testable import StrataRedis
import Testing

@Suite("RedisCommand: RESP2 arrays of bulk strings")
struct RedisCommandTests {
    @Test("a command encodes as an array of length-prefixed bulk strings, binary-safe")
    func encoding() {
        var buffer: [UInt8] = []
        RedisCommand("SET", "k", RedisArgument(Data([0, 13, 10, 255])), "PX", RedisArgument(1500)).encode(into: &buffer)
        let expected =
            Array("*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\n".utf8) + [0, 13, 10, 255]
            + Array("\r\n$2\r\nPX\r\n$4\r\n1500\r\n".utf8)
        #expect(buffer == expected)
    }

    @Test("two commands appended to one buffer form a pipeline the parser reads back as two arrays")
    func pipeline() throws {
        var buffer: [UInt8] = []
        RedisCommand("GET", "a").encode(into: &buffer)
        RedisCommand("PEXPIRE", "a", RedisArgument(10)).encode(into: &buffer)
        var parser = RESPParser()
        parser.append(buffer)
        #expect(try parser.next() == .array([.bulkString(Array("GET".utf8)), .bulkString(Array("a".utf8))]))
        #expect(
            try parser.next()
                == .array([
                    .bulkString(Array("PEXPIRE".utf8)), .bulkString(Array("a".utf8)),
                    .bulkString(Array("10".utf8)),
                ]))
    }

    @Test("a command's name is all that is shown of it: AUTH's password stays out")
    func nameOnly() {
        let auth = RedisCommand("AUTH", "fleet", "s3cret")
        #expect(auth.name == "AUTH")
        #expect(!String(describing: RedisClientError.commandTimedOut(peer: "h:1/0", command: auth.name)).contains("s3cret"))
    }
}
