/// Cuts a JSON Lines (NDJSON, `application/jsonl`) body into its lines as the bytes arrive, in
/// chunks cut anywhere.
///
/// The JSON Lines format (jsonlines.org): each line is one JSON value, lines end with `\n`,
/// and a `\r` before it is tolerated (`\r\n`). Here, as in most readers, a line holding nothing
/// but spaces, tabs or `\r` is skipped, and a last line without its `\n` still counts. A line
/// longer than ``maxLineBytes`` fails before more of it is held.
struct JSONLineSplitter: Sendable {
    /// The most bytes a line may hold, its `\r\n` aside.
    let maxLineBytes: Int
    /// The start of a line whose `\n` has not arrived yet.
    private var line: [UInt8] = []
    /// The number of the line being read (1-based).
    private var lineNumber = 1

    private static let lineFeed = UInt8(ascii: "\n")

    /// Creates a splitter allowing lines of at most `maxLineBytes` bytes (at least 1).
    init(maxLineBytes: Int) {
        self.maxLineBytes = max(1, maxLineBytes)
    }

    /// Splits the next bytes, calling `each` with every non-blank line they complete and its number.
    ///
    /// - Throws: ``JSONLinesError/lineTooLong(line:limit:)``, or what `each` throws.
    mutating func split(_ chunk: ArraySlice<UInt8>, _ each: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        var rest = chunk
        while let end = rest.firstIndex(of: Self.lineFeed) {
            try checkLimit(adding: end - rest.startIndex, allowingCarriageReturn: true)
            if line.isEmpty {
                try emit(rest[..<end], each) // The whole line is in this chunk: no copy.
            } else {
                line.append(contentsOf: rest[..<end])
                let complete = line
                line.removeAll(keepingCapacity: true)
                try emit(complete[...], each)
            }
            rest = rest[(end + 1)...]
        }
        // A `\r` that may be the start of `\r\n` is allowed one byte past the limit.
        try checkLimit(adding: rest.count, allowingCarriageReturn: rest.last == UInt8(ascii: "\r"))
        line.append(contentsOf: rest)
    }

    /// Ends the body: a last line without its `\n` is handed to `each`.
    ///
    /// - Throws: ``JSONLinesError/lineTooLong(line:limit:)``, or what `each` throws.
    mutating func finish(_ each: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        guard !line.isEmpty else { return }
        let last = line
        line = []
        try emit(last[...], each)
    }

    /// Throws when the line held plus `count` bytes passes the limit (a final `\r` not counted).
    private func checkLimit(adding count: Int, allowingCarriageReturn: Bool) throws(JSONLinesError) {
        let length = line.count + count
        guard length <= maxLineBytes + (allowingCarriageReturn ? 1 : 0) else {
            throw .lineTooLong(line: lineNumber, limit: maxLineBytes)
        }
    }

    /// Hands `line` (its `\r` removed) to `each` unless it is blank, and moves to the next line.
    private mutating func emit(_ line: ArraySlice<UInt8>, _ each: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        defer { lineNumber += 1 }
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }) else { return }
        guard line.count <= maxLineBytes else { throw JSONLinesError.lineTooLong(line: lineNumber, limit: maxLineBytes) }
        try each(line, lineNumber)
    }
}
