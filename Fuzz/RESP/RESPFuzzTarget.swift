// Fuzz target `resp` (scripts/fuzz.sh): StrataRedis's RESP2 reply parser, compiled into the
// StrataRedis module so it reaches the internal RESPParser.
//
// Input: byte 0 picks the limits, byte 1 seeds the split, the rest is what Redis sent.
// Properties checked on every input:
// 1. Parsing never crashes, and every loop ends (libFuzzer's -timeout catches a hang).
// 2. Split invariance: the bytes fed in random pieces give exactly the replies and the error
//    that the bytes fed at once give.
// 3. Round trip: every reply parsed with the default limits, encoded again as RESP2, parses to
//    an equal reply.

/// Small limits, so mutations cross every limit check; chosen by the input's first byte.
private func limits(_ choice: UInt8) -> RESPLimits {
    guard choice & 0x80 != 0 else { return RESPLimits() }
    return RESPLimits(
        maxLineBytes: 4 + Int(choice & 0x0F), maxBulkBytes: Int(choice & 0x1F), maxArrayCount: Int(choice & 0x07),
        maxDepth: 1 + Int(choice & 0x03), maxReplyBytes: 16 + Int(choice & 0x3F))
}

/// The replies a parser made of one byte stream, then the error that stopped it, if any.
private struct Outcome: Equatable {
    var replies: [RESPValue] = []
    var error: RESPParseError?
}

private func parse(_ bytes: [UInt8], limits: RESPLimits, pieces: [Range<Int>]) -> Outcome {
    var parser = RESPParser(limits: limits)
    var outcome = Outcome()
    do {
        for piece in pieces {
            parser.append(bytes[piece])
            while let reply = try parser.next() { outcome.replies.append(reply) }
        }
    } catch {
        outcome.error = error
    }
    return outcome
}

/// `value` as Redis would send it.
private func encode(_ value: RESPValue) -> [UInt8] {
    switch value {
    case .simpleString(let text): Array("+\(text)\r\n".utf8)
    case .error(let text): Array("-\(text)\r\n".utf8)
    case .integer(let number): Array(":\(number)\r\n".utf8)
    case .bulkString(nil): Array("$-1\r\n".utf8)
    case .bulkString(let bytes?): Array("$\(bytes.count)\r\n".utf8) + bytes + Array("\r\n".utf8)
    case .array(nil): Array("*-1\r\n".utf8)
    case .array(let elements?): Array("*\(elements.count)\r\n".utf8) + elements.flatMap(encode)
    }
}

func fuzz(_ input: inout FuzzInput) {
    let limits = limits(input.byte())
    var random = SeededGenerator(seed: UInt64(input.byte()))
    let bytes = input.rest()

    let whole = parse(bytes, limits: limits, pieces: [0..<bytes.count])
    let split = parse(bytes, limits: limits, pieces: random.pieces(of: bytes.count))
    fuzzCheck(whole == split, "fed at once: \(whole)\nfed in pieces: \(split)")

    guard limits == RESPLimits() else { return }
    for reply in whole.replies {
        let encoded = encode(reply)
        let again = parse(encoded, limits: limits, pieces: [0..<encoded.count])
        fuzzCheck(again == Outcome(replies: [reply]), "reply \(reply) re-encoded parses as \(again)")
    }
}
