/// The WHATWG HTML Standard's "parsing an event stream" algorithm (§9.2.6 Server-sent events),
/// fed a `text/event-stream` body's bytes as they arrive, in chunks cut anywhere.
///
/// The rules, each in the code below with its clause:
/// - One leading UTF-8 byte order mark is skipped (the stream is read with "UTF-8 decode").
/// - Lines end with CR LF, LF or CR; a CR LF cut between two chunks is one line end.
/// - A line that starts with `:` is a comment. Otherwise the field name is what precedes the
///   first `:` and the value what follows it, less one leading space; a line with no `:` is a
///   field with an empty value. Unknown fields are ignored.
/// - `data` appends its value and a LF to the data buffer; `event` sets the event type; `id`
///   sets the last event ID buffer unless the value contains NUL; `retry` sets the reconnection
///   time when the value is all ASCII digits.
/// - An empty line dispatches: the last event ID takes the buffer's value, then an event is
///   produced unless the data buffer is empty (its final LF removed, type `"message"` when none).
/// - At the end of the stream a block not ended by an empty line is discarded (``finish()``).
/// - Invalid UTF-8 becomes U+FFFD. Splitting lines on bytes first is the same as decoding first:
///   CR, LF and `:` are ASCII, and a UTF-8 decoder never takes an ASCII byte into an invalid
///   sequence.
///
/// Memory is bounded by ``maxEventBytes``: the bytes of the line being read plus the event's data
/// buffered so far may not pass it (the event type and ID are each one line).
package struct ServerSentEventParser: Sendable {
    /// The most bytes one line plus one event's data may take before parsing fails with
    /// ``ServerSentEventError/eventTooLarge(limit:)``.
    package let maxEventBytes: Int
    /// The event source's last event ID string, as of the last dispatch: what a reconnect sends
    /// as `Last-Event-ID`. An `id:` in a block that is never dispatched does not change it.
    package private(set) var lastEventID: String?
    /// The reconnection time the stream asked for with its last valid `retry:` field.
    package private(set) var reconnectionTime: Duration?

    private var lastEventIDBuffer: String?
    private var eventType: [UInt8] = []
    private var data: [UInt8] = []
    /// The start of a line whose end has not arrived yet.
    private var line: [UInt8] = []
    /// How many bytes of a byte order mark the stream began with so far; `nil` once past its start.
    private var byteOrderMarkSeen: Int? = 0
    /// The last line ended with CR: a LF first in the next chunk is the rest of that line end.
    private var skipsLineFeed = false

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")

    /// Creates a parser for one connection's stream.
    ///
    /// - Parameters:
    ///   - maxEventBytes: The most bytes one line plus one event's data may take.
    ///   - lastEventID: The event source's last event ID from an earlier connection: a stream
    ///     that sets no `id:` keeps it (as browsers do on a reconnect).
    ///   - reconnectionTime: The reconnection time an earlier connection asked for.
    package init(
        maxEventBytes: Int = ServerSentEventSequence.defaultMaxEventBytes, lastEventID: String? = nil, reconnectionTime: Duration? = nil
    ) {
        self.maxEventBytes = max(1, maxEventBytes)
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID
        self.reconnectionTime = reconnectionTime
    }

    /// Parses the next bytes of the stream, appending the events they complete to `events`.
    ///
    /// - Throws: ``ServerSentEventError/eventTooLarge(limit:)`` when a line plus the event's data
    ///   pass ``maxEventBytes``; the parser must not be used after that.
    package mutating func parse(_ chunk: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws(ServerSentEventError) {
        guard let seen = byteOrderMarkSeen else { return try consume(chunk, into: &events) }
        // "UTF-8 decode" strips one leading BOM; it may arrive a byte at a time.
        var matched = seen
        var index = chunk.startIndex
        while matched < 3, index < chunk.endIndex, chunk[index] == Self.byteOrderMark[matched] {
            matched += 1
            index += 1
        }
        if matched == 3 {
            byteOrderMarkSeen = nil
            try consume(chunk[index...], into: &events)
        } else if index == chunk.endIndex {
            byteOrderMarkSeen = matched // Every byte so far may still be a BOM.
        } else {
            // Not a BOM after all: the bytes held from earlier chunks are text, then this chunk.
            byteOrderMarkSeen = nil
            try consume(Self.byteOrderMark[..<seen], into: &events)
            try consume(chunk, into: &events)
        }
    }

    /// Ends the stream: "If the file ends in the middle of an event, before the final empty line,
    /// the incomplete event is not dispatched." Pending bytes are dropped; the last event ID and
    /// reconnection time stay.
    package mutating func finish() {
        line = []
        data = []
        eventType = []
        skipsLineFeed = false
        byteOrderMarkSeen = nil
    }

    /// Splits `bytes` into lines, processing each complete one.
    private mutating func consume(_ bytes: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws(ServerSentEventError) {
        var rest = bytes
        if skipsLineFeed, let first = rest.first {
            skipsLineFeed = false
            if first == Self.lineFeed { rest = rest.dropFirst() } // The LF of a CR LF cut between chunks.
        }
        while let end = rest.firstIndex(where: { $0 == Self.lineFeed || $0 == Self.carriageReturn }) {
            try checkLimit(adding: end - rest.startIndex)
            if line.isEmpty {
                try process(rest[..<end], into: &events) // The whole line is in this chunk: no copy.
            } else {
                line.append(contentsOf: rest[..<end])
                let complete = line
                line.removeAll(keepingCapacity: true)
                try process(complete[...], into: &events)
            }
            var next = end + 1
            if rest[end] == Self.carriageReturn {
                if next == rest.endIndex {
                    skipsLineFeed = true
                } else if rest[next] == Self.lineFeed {
                    next += 1
                }
            }
            rest = rest[next...]
        }
        try checkLimit(adding: rest.count)
        line.append(contentsOf: rest)
    }

    /// Throws when a line `count` bytes longer than the one held would pass the limit.
    private func checkLimit(adding count: Int) throws(ServerSentEventError) {
        guard line.count + count + data.count <= maxEventBytes else { throw .eventTooLarge(limit: maxEventBytes) }
    }

    /// Processes one line (without its line end).
    private mutating func process(_ line: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) throws(ServerSentEventError) {
        guard let first = line.first else { return dispatch(into: &events) } // "If the line is empty"
        guard first != Self.colon else { return } // "If the line starts with a U+003A COLON": a comment.
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: Self.colon) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == Self.space { value = value.dropFirst() } // One leading space, no more.
        } else {
            name = line // The whole line is the field name, the value is empty.
            value = line[line.endIndex...]
        }
        try processField(name, value)
    }

    /// "Process the field": the four known names; anything else is ignored.
    private mutating func processField(_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) throws(ServerSentEventError) {
        if name.elementsEqual("data".utf8) {
            guard data.count + value.count + 1 <= maxEventBytes else { throw .eventTooLarge(limit: maxEventBytes) }
            data.append(contentsOf: value)
            data.append(Self.lineFeed)
        } else if name.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if name.elementsEqual("id".utf8) {
            // "If the field value does not contain U+0000 NULL", else the field is ignored.
            guard !value.contains(0) else { return }
            lastEventIDBuffer = value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("retry".utf8) {
            // "If the field value consists of only ASCII digits"; an empty value has none.
            guard !value.isEmpty, value.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return }
            reconnectionTime = .milliseconds(Self.saturatingInteger(value))
        }
    }

    /// "Dispatch the event".
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer // Even when no event follows: an `id:`-only block moves it.
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = []
        }
        guard !data.isEmpty else { return }
        data.removeLast() // The LF after the last data line.
        events.append(
            ServerSentEvent(
                type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                data: String(decoding: data, as: UTF8.self),
                id: lastEventID, retry: reconnectionTime))
    }

    /// The base-ten value of ASCII `digits`, `Int64.max` when it is larger (a wait that long is
    /// capped by the reconnect policy anyway).
    private static func saturatingInteger(_ digits: ArraySlice<UInt8>) -> Int64 {
        var value: Int64 = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return .max }
            value = sum
        }
        return value
    }
}
