// Fuzz target `json-lines` (scripts/fuzz.sh): the JSON Lines splitter, compiled into the Strata
// module so it reaches the internal JSONLineSplitter, and the decoding of each line.
//
// Input: byte 0 picks the line limit, byte 1 seeds the split, the rest is the body.
// Properties checked on every input:
// 1. Splitting never crashes, and every loop ends (libFuzzer's -timeout catches a hang).
// 2. Split invariance: the bytes fed in random pieces give exactly the lines, numbers and
//    error that the bytes fed at once give.
// 3. Differential: with no limit reached, the lines equal a plain reference split (cut at LF,
//    drop one CR before it, skip blank lines, number from 1).
// 4. No line holds LF or passes the limit; decoding a line as JSON
//    either gives a value or throws JSONLinesError.invalidLine with that line's number.
import Foundation

private func limit(_ choice: UInt8) -> Int {
    choice & 0x80 != 0 ? 1 + Int(choice & 0x3F) : JSONLineSequence<Int>.defaultMaxLineBytes
}

private struct Outcome: Equatable {
    var lines: [[UInt8]] = []
    var numbers: [Int] = []
    var failed = false
}

private func split(_ bytes: [UInt8], maxLineBytes: Int, pieces: [Range<Int>]) -> Outcome {
    var splitter = JSONLineSplitter(maxLineBytes: maxLineBytes)
    var outcome = Outcome()
    func keep(_ line: ArraySlice<UInt8>, _ number: Int) {
        outcome.lines.append(Array(line))
        outcome.numbers.append(number)
    }
    do {
        for piece in pieces { try splitter.split(bytes[piece], keep) }
        try splitter.finish(keep)
    } catch {
        outcome.failed = true
    }
    return outcome
}

private func reference(_ bytes: [UInt8]) -> Outcome {
    var outcome = Outcome()
    let pieces = bytes.split(separator: 10, omittingEmptySubsequences: false)
    for (offset, piece) in pieces.enumerated() {
        var line = Array(piece)
        if line.last == 13 { line.removeLast() }
        guard line.contains(where: { $0 != 32 && $0 != 9 && $0 != 13 }) else { continue }
        outcome.lines.append(line)
        outcome.numbers.append(offset + 1)
    }
    return outcome
}

/// Any JSON value, so every line that is JSON decodes.
private struct AnyJSON: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { return }
        if (try? container.decode(Bool.self)) != nil { return }
        if (try? container.decode(Double.self)) != nil { return }
        if (try? container.decode(String.self)) != nil { return }
        if (try? container.decode([AnyJSON].self)) != nil { return }
        _ = try container.decode([String: AnyJSON].self)
    }
}

func fuzz(_ input: inout FuzzInput) {
    let maxLineBytes = limit(input.byte())
    var random = SeededGenerator(seed: UInt64(input.byte()))
    let bytes = input.rest()

    let whole = split(bytes, maxLineBytes: maxLineBytes, pieces: [0..<bytes.count])
    let pieces = split(bytes, maxLineBytes: maxLineBytes, pieces: random.pieces(of: bytes.count))
    fuzzCheck(whole == pieces, "fed at once: \(whole)\nfed in pieces: \(pieces)")

    for (line, number) in zip(whole.lines, whole.numbers) {
        fuzzCheck(!line.contains(10) && line.count <= maxLineBytes, "line \(number) is \(line)")
        do {
            _ = try JSONLineSequence<AnyJSON>.Iterator.decode(line[...], number: number, with: JSONDecoder())
        } catch {
            guard case .invalidLine(let reported, _) = error else { return fuzzCheck(false, "line \(number): \(error)") }
            fuzzCheck(reported == number, "line \(number) reported as \(reported)")
        }
    }
    guard !whole.failed else { return }
    let expected = reference(bytes)
    fuzzCheck(whole == expected, "splitter: \(whole)\nreference: \(expected)")
}
