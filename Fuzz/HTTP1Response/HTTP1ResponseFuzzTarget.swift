// Fuzz target `http1-response` (scripts/fuzz.sh): HTTP1ResponseParser, compiled into the
// StrataPinning module so it reaches the internal parser.
//
// Input: byte 0 picks the request method and the limits, byte 1 seeds the split, the rest is
// what the server sent. Properties checked on every input:
// 1. Parsing never crashes, and every loop ends (libFuzzer's -timeout catches a hang).
// 2. Split invariance: the bytes fed in random pieces give exactly the responses and the error
//    that the bytes fed at once give.
// 3. Round trip: every response parsed with the default limits, encoded again as HTTP/1.1
//    (same head, body framed the way it was), parses to an equal response.
import Foundation
import Strata

private let methods: [HTTPMethod] = [.get, .head, .post]

/// Small limits, so mutations cross every limit check; chosen by the input's first byte.
private func limits(_ choice: UInt8) -> HTTPLimits {
    guard choice & 0x80 != 0 else { return .default }
    return HTTPLimits(
        maxHeaderBlockBytes: 64 + Int(choice & 0x0F) * 16, maxHeaderCount: 1 + Int(choice & 0x07),
        maxResponseBodyBytes: Int(choice & 0x3F), maxChunkSizeLineBytes: 2 + Int(choice & 0x1F),
        maxInterimResponses: Int(choice & 0x03))
}

/// Everything a parser made of one byte stream: the responses in order (pipelined ones too),
/// then how the stream ended.
private struct Outcome: Equatable {
    var responses: [HTTP1Response] = []
    var end: HTTP1ResponseError?
}

private func parse(_ bytes: [UInt8], method: HTTPMethod, limits: HTTPLimits, pieces: [Range<Int>]) -> Outcome {
    var parser = HTTP1ResponseParser(limits: limits)
    parser.expectResponse(to: method)
    var outcome = Outcome()
    do {
        for piece in pieces {
            var next = try parser.feed(bytes[piece])
            // A piece can complete a response and hold the next ones: drain them all.
            while let response = next {
                outcome.responses.append(response)
                parser.expectResponse(to: .get)
                next = try parser.parse()
            }
        }
        outcome.responses.append(try parser.finish())
    } catch {
        outcome.end = error
    }
    return outcome
}

/// `response` as a server would send it: interim responses, head, then the body framed as it
/// was framed (a close-delimited body is ended by ending the stream).
private func encode(_ response: HTTP1Response) -> [UInt8] {
    var text = ""
    for code in response.interimStatusCodes { text += "HTTP/1.1 \(code) Interim\r\n\r\n" }
    text += (response.version == .http1_0 ? "HTTP/1.0 " : "HTTP/1.1 ") + "\(response.statusCode) Fuzz\r\n"
    for field in response.headers { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    var bytes = Array(text.utf8)
    switch response.framing {
    case .none:
        break
    case .contentLength, .untilClose:
        bytes += response.body
    case .chunked:
        if !response.body.isEmpty {
            bytes += Array((String(response.body.count, radix: 16) + "\r\n").utf8) + response.body + Array("\r\n".utf8)
        }
        var trailer = "0\r\n"
        for field in response.trailers { trailer += "\(field.name): \(field.value)\r\n" }
        bytes += Array((trailer + "\r\n").utf8)
    }
    return bytes
}

func fuzz(_ input: inout FuzzInput) {
    let choice = input.byte()
    var random = SeededGenerator(seed: UInt64(input.byte()))
    let bytes = input.rest()
    let method = methods[Int(choice) % methods.count]
    let limits = limits(choice)

    let whole = parse(bytes, method: method, limits: limits, pieces: [0..<bytes.count])
    let split = parse(bytes, method: method, limits: limits, pieces: random.pieces(of: bytes.count))
    fuzzCheck(whole == split, "fed at once: \(whole)\nfed in pieces: \(split)")

    guard limits == .default else { return }
    for (index, response) in whole.responses.enumerated() {
        // Pipelined responses after the first answer the GET the harness expects next.
        let encoded = encode(response)
        let again = parse(encoded, method: index == 0 ? method : .get, limits: limits, pieces: [0..<encoded.count])
        fuzzCheck(
            again.responses.first == response,
            "response \(index): \(response)\nre-encoded: \(String(decoding: encoded, as: UTF8.self))\nparsed again: \(again)")
    }
}
