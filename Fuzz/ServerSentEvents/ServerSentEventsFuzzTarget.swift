// Fuzz target `server-sent-events` (scripts/fuzz.sh): the WHATWG event-stream parser, compiled
// into the Strata module so it reaches the internal ServerSentEventParser.
//
// Input: byte 0 picks the event size limit, byte 1 seeds the split, the rest is the body.
// Properties checked on every input:
// 1. Parsing never crashes, and every loop ends (libFuzzer's -timeout catches a hang).
// 2. Split invariance: the bytes fed in random pieces give exactly the events, last event ID,
//    reconnection time and error that the bytes fed at once give.
// 3. Differential: with no limit reached, the events equal those of a plain reference reading of
//    the standard written here (decode whole, split lines, process fields), which shares no
//    code with the parser.
// 4. An event's ID never holds NUL, and no event holds more scalars than the limit has bytes.

/// A small limit, so mutations cross it, or the default; chosen by the input's first byte.
private func limit(_ choice: UInt8) -> Int {
    choice & 0x80 != 0 ? 1 + Int(choice & 0x3F) : ServerSentEventSequence.defaultMaxEventBytes
}

/// What a parser made of one byte stream.
private struct Outcome: Equatable {
    var events: [ServerSentEvent] = []
    var lastEventID: String?
    var reconnectionTime: Duration?
    var failed = false
}

private func parse(_ bytes: [UInt8], maxEventBytes: Int, pieces: [Range<Int>]) -> Outcome {
    var parser = ServerSentEventParser(maxEventBytes: maxEventBytes)
    var outcome = Outcome()
    do {
        for piece in pieces { try parser.parse(bytes[piece], into: &outcome.events) }
        parser.finish()
    } catch {
        outcome.failed = true
    }
    outcome.lastEventID = parser.lastEventID
    outcome.reconnectionTime = parser.reconnectionTime
    return outcome
}

/// The standard read as plainly as possible: strip one BOM, cut complete lines at CR LF, LF or
/// CR, process each; a last line without its end is dropped.
private func reference(_ input: [UInt8]) -> [ServerSentEvent] {
    var bytes = input[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    var lines: [String] = []
    var current: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let byte = bytes[index]
        index += 1
        guard byte == 10 || byte == 13 else {
            current.append(byte)
            continue
        }
        if byte == 13, index < bytes.endIndex, bytes[index] == 10 { index += 1 }
        lines.append(String(decoding: current, as: UTF8.self))
        current = []
    }
    var events: [ServerSentEvent] = []
    var data = "", type = "", idBuffer = "", lastID = ""
    var retry: Duration?
    for line in lines {
        if line.isEmpty {
            lastID = idBuffer
            if data.isEmpty {
                type = ""
                continue
            }
            data.unicodeScalars.removeLast() // The LF after the last data line.
            events.append(
                ServerSentEvent(
                    type: type.isEmpty ? "message" : type, data: data,
                    id: lastID.isEmpty ? nil : lastID, retry: retry))
            data = ""
            type = ""
            continue
        }
        // Scalars, not Characters: a combining mark after ':' or ' ' must not hide it.
        let scalars = line.unicodeScalars
        if scalars.first == ":" { continue }
        var name = line, value = ""
        if let colon = scalars.firstIndex(of: ":") {
            name = String(scalars[..<colon])
            var rest = scalars[scalars.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = String(rest)
        }
        switch Array(name.utf8) {
        case Array("event".utf8): type = value
        case Array("data".utf8): data += value + "\n"
        case Array("id".utf8) where !value.utf8.contains(0): idBuffer = value
        case Array("retry".utf8) where !value.isEmpty && value.utf8.allSatisfy({ (48...57).contains($0) }):
            retry = .milliseconds(Int64(value) ?? .max)
        default: break
        }
    }
    return events
}

func fuzz(_ input: inout FuzzInput) {
    let maxEventBytes = limit(input.byte())
    var random = SeededGenerator(seed: UInt64(input.byte()))
    let bytes = input.rest()

    let whole = parse(bytes, maxEventBytes: maxEventBytes, pieces: [0..<bytes.count])
    let split = parse(bytes, maxEventBytes: maxEventBytes, pieces: random.pieces(of: bytes.count))
    fuzzCheck(whole == split, "fed at once: \(whole)\nfed in pieces: \(split)")

    for event in whole.events {
        fuzzCheck(!(event.id ?? "").contains("\0"), "an event ID holds NUL: \(event)")
        // Each byte read gives at most one scalar (an invalid one becomes a 3-byte U+FFFD).
        fuzzCheck(event.data.unicodeScalars.count <= maxEventBytes, "an event passed the \(maxEventBytes)-byte limit: \(event)")
    }
    guard !whole.failed else { return }
    let expected = reference(bytes)
    fuzzCheck(whole.events == expected, "parser: \(whole.events)\nreference: \(expected)")
}
