import Foundation
@testable import Strata
import Testing

/// Every rule of the HTML Standard's "parsing an event stream" (§9.2.6), one test each. Every
/// input is parsed whole and again one byte at a time; both must agree, so each rule is also a
/// chunk-boundary test.
@Suite("Server-sent events are parsed by the WHATWG EventSource rules")
struct ServerSentEventParserTests {
    /// The events of `bytes`, checked to be the same when the bytes arrive one at a time.
    static func parse(_ bytes: [UInt8], maxEventBytes: Int = 1 << 20) throws -> (events: [ServerSentEvent], parser: ServerSentEventParser) {
        var whole = ServerSentEventParser(maxEventBytes: maxEventBytes)
        var events: [ServerSentEvent] = []
        try whole.parse(bytes[...], into: &events)
        whole.finish()
        var byByte = ServerSentEventParser(maxEventBytes: maxEventBytes)
        var byteEvents: [ServerSentEvent] = []
        for byte in bytes { try byByte.parse([byte][...], into: &byteEvents) }
        byByte.finish()
        #expect(byteEvents == events, "byte by byte gives other events than whole")
        #expect(byByte.lastEventID == whole.lastEventID)
        #expect(byByte.reconnectionTime == whole.reconnectionTime)
        return (events, whole)
    }

    static func parse(_ text: String) throws -> [ServerSentEvent] { try parse(Array(text.utf8)).events }

    @Test("a leading UTF-8 byte order mark is skipped")
    func leadingBOMSkipped() throws {
        #expect(try Self.parse("\u{FEFF}data: a\n\n") == [ServerSentEvent(data: "a")])
    }

    @Test("only one leading byte order mark is skipped: a second one is part of the first field's name")
    func secondBOMKept() throws {
        #expect(try Self.parse("\u{FEFF}\u{FEFF}data: a\n\ndata: b\n\n") == [ServerSentEvent(data: "b")])
    }

    @Test("a byte order mark after the start is text")
    func laterBOMIsText() throws {
        #expect(try Self.parse("data: \u{FEFF}a\n\n") == [ServerSentEvent(data: "\u{FEFF}a")])
    }

    @Test("the first bytes of a byte order mark that is not one are text")
    func partialBOMIsText() throws {
        let bytes: [UInt8] = [0xEF, 0xBB] + Array("data: a\n\n".utf8)
        // "\u{EF}\u{BB}data" is an unknown field: nothing is dispatched, and nothing is lost.
        #expect(try Self.parse(bytes).events.isEmpty)
        let text: [UInt8] = Array("data: ".utf8) + [0xEF, 0xBB] + Array("\n\n".utf8)
        #expect(try Self.parse(text).events == [ServerSentEvent(data: "\u{FFFD}")])
    }

    @Test("lines may end with LF")
    func lineFeedEnds() throws {
        #expect(try Self.parse("data: a\ndata: b\n\n") == [ServerSentEvent(data: "a\nb")])
    }

    @Test("lines may end with CR")
    func carriageReturnEnds() throws {
        #expect(try Self.parse("data: a\rdata: b\r\r") == [ServerSentEvent(data: "a\nb")])
    }

    @Test("lines may end with CR LF, and the three may be mixed")
    func crlfEnds() throws {
        #expect(try Self.parse("data: a\r\ndata: b\r\n\r\n") == [ServerSentEvent(data: "a\nb")])
        #expect(try Self.parse("data: a\rdata: b\ndata: c\r\n\n") == [ServerSentEvent(data: "a\nb\nc")])
    }

    @Test("a CR LF cut between two chunks is one line end, not an empty line")
    func crlfAcrossChunks() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Array("data: a\r".utf8)[...], into: &events)
        try parser.parse(Array("\ndata: b\r".utf8)[...], into: &events)
        #expect(events.isEmpty, "the LF after a CR dispatched an event")
        try parser.parse(Array("\n\r\n".utf8)[...], into: &events)
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("CR CR is two line ends: the second dispatches")
    func doubleCarriageReturn() throws {
        #expect(try Self.parse("data: a\r\rdata: b\r\r") == [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    @Test("a line starting with a colon is a comment")
    func comments() throws {
        #expect(try Self.parse(": keep-alive\ndata: a\n:\n\n: only a comment\n\n") == [ServerSentEvent(data: "a")])
    }

    @Test("the field name ends at the first colon; later colons are part of the value")
    func splitAtFirstColon() throws {
        #expect(try Self.parse("data: a:b: c\n\n") == [ServerSentEvent(data: "a:b: c")])
    }

    @Test("one leading space of the value is removed, and only one")
    func oneSpaceRemoved() throws {
        #expect(
            try Self.parse("data:a\n\ndata: b\n\ndata:  c\n\ndata:\td\n\n")
                == ["a", "b", " c", "\td"].map { ServerSentEvent(data: $0) })
    }

    @Test("a line without a colon is a field with an empty value")
    func fieldWithoutColon() throws {
        #expect(try Self.parse("data\n\ndata\ndata\n\n") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test("data lines are joined with LF, without a trailing LF")
    func dataJoined() throws {
        // The HTML Standard's own example.
        #expect(try Self.parse("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("event sets the type, which is message when none is given")
    func eventType() throws {
        #expect(
            try Self.parse("event: add\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\n")
                == [ServerSentEvent(type: "add", data: "1"), ServerSentEvent(data: "2"), ServerSentEvent(data: "3")])
    }

    @Test("a block with an event type but no data dispatches nothing and clears the type")
    func typeWithoutData() throws {
        #expect(try Self.parse("event: add\n\ndata: 1\n\n") == [ServerSentEvent(data: "1")])
    }

    @Test("id sets the last event ID, which persists across later events")
    func idPersists() throws {
        let (events, parser) = try Self.parse(Array("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n".utf8))
        #expect(events.map(\.id) == ["1", "1", "2"])
        #expect(parser.lastEventID == "2")
    }

    @Test("an id whose value contains NUL is ignored")
    func idWithNulIgnored() throws {
        let (events, parser) = try Self.parse(Array("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n".utf8))
        #expect(events.map(\.id) == ["1", "1"])
        #expect(parser.lastEventID == "1")
    }

    @Test("an empty id resets the last event ID")
    func emptyIDResets() throws {
        let (events, parser) = try Self.parse(Array("id: 1\ndata: a\n\nid\ndata: b\n\n".utf8))
        #expect(events.map(\.id) == ["1", nil])
        #expect(parser.lastEventID == nil)
    }

    @Test("retry with only ASCII digits sets the reconnection time in milliseconds")
    func retryDigits() throws {
        let (events, parser) = try Self.parse(Array("retry: 2500\ndata: a\n\nretry: 0\n\n".utf8))
        #expect(events.map(\.retry) == [.milliseconds(2500)])
        #expect(parser.reconnectionTime == .zero)
    }

    @Test("retry with anything but ASCII digits is ignored")
    func retryNonDigitsIgnored() throws {
        for value in ["10a", "-1", "1.5", "", " 100", "1e3", "٣"] {
            let (_, parser) = try Self.parse(Array("retry: 700\n\nretry: \(value)\n\n".utf8))
            #expect(parser.reconnectionTime == .milliseconds(700), "retry: \(value) was not ignored")
        }
    }

    @Test("a retry too large for 64 bits saturates instead of wrapping")
    func retrySaturates() throws {
        let (_, parser) = try Self.parse(Array("retry: 99999999999999999999999\n\n".utf8))
        #expect(parser.reconnectionTime == .milliseconds(Int64.max))
    }

    @Test("unknown fields are ignored, and field names are case-sensitive")
    func unknownFieldsIgnored() throws {
        #expect(try Self.parse("foo: bar\nData: x\nDATA: y\ndata: a\nEvent: z\n\n") == [ServerSentEvent(data: "a")])
    }

    @Test("a blank line with an empty data buffer dispatches nothing, but the last event ID still updates")
    func emptyDispatchUpdatesID() throws {
        let (events, parser) = try Self.parse(Array("id: 7\n\n".utf8))
        #expect(events.isEmpty)
        #expect(parser.lastEventID == "7")
        #expect(try Self.parse("id: 7\n\ndata: a\n\n") == [ServerSentEvent(data: "a", id: "7")])
    }

    @Test("a final event not ended by a blank line is discarded at the end of the stream")
    func unterminatedFinalEventDiscarded() throws {
        #expect(try Self.parse("data: a\n\ndata: b\n") == [ServerSentEvent(data: "a")])
        #expect(try Self.parse("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
    }

    @Test("an id in a block that is never dispatched does not change the last event ID")
    func unterminatedIDNotApplied() throws {
        let (_, parser) = try Self.parse(Array("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8))
        #expect(parser.lastEventID == "1")
    }

    @Test("invalid UTF-8 is decoded with U+FFFD replacement characters")
    func invalidUTF8Replaced() throws {
        let bytes = Array("event: t".utf8) + [0xC3] + Array("\ndata: a".utf8) + [0xFF, 0xFE] + Array("b\n\n".utf8)
        #expect(try Self.parse(bytes).events == [ServerSentEvent(type: "t\u{FFFD}", data: "a\u{FFFD}\u{FFFD}b")])
    }

    @Test("multi-byte characters cut between chunks come out whole")
    func multiByteAcrossChunks() throws {
        #expect(try Self.parse("data: ünïcödé 🎉\n\n") == [ServerSentEvent(data: "ünïcödé 🎉")])
    }

    @Test("a line longer than the limit throws eventTooLarge, even a comment")
    func lineLimit() throws {
        #expect(throws: ServerSentEventError.self) {
            try Self.parse(Array("data: \(String(repeating: "x", count: 100))\n\n".utf8), maxEventBytes: 64)
        }
        #expect(throws: ServerSentEventError.self) {
            try Self.parse(Array(":\(String(repeating: "x", count: 100))".utf8), maxEventBytes: 64)
        }
    }

    @Test("an event whose data lines together pass the limit throws eventTooLarge")
    func eventLimit() throws {
        let line = "data: \(String(repeating: "x", count: 20))\n"
        let error = #expect(throws: ServerSentEventError.self) {
            try Self.parse(Array(String(repeating: line, count: 4).utf8), maxEventBytes: 64)
        }
        guard case .eventTooLarge(let limit) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == 64)
    }

    @Test("an event exactly at the limit is read, one byte less throws, and the limit starts again with each event")
    func eventAtLimit() throws {
        // The second line (26 bytes) arrives while the first line's data (21 bytes) is held: 47.
        let block = String(repeating: "data: \(String(repeating: "x", count: 20))\n", count: 2) + "\n"
        let stream = Array(String(repeating: block, count: 3).utf8)
        #expect(try Self.parse(stream, maxEventBytes: 47).events.count == 3)
        #expect(throws: ServerSentEventError.self) { try Self.parse(stream, maxEventBytes: 46) }
    }

    @Test("any cut of a mixed stream gives the same events as the whole")
    func anyCut() throws {
        let stream = Array("\u{FEFF}: hi\r\nretry: 10\rid: a\nevent: e\r\ndata: 1\r\ndata:2\r\r\nid\0\ndata\n\ndata: ü\n\r".utf8)
        var reference = ServerSentEventParser()
        var expected: [ServerSentEvent] = []
        try reference.parse(stream[...], into: &expected)
        #expect(expected.count == 3)
        for cut in 1..<stream.count {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            try parser.parse(stream[..<cut], into: &events)
            try parser.parse(stream[cut...], into: &events)
            #expect(events == expected, "cut at \(cut)")
        }
    }
}
