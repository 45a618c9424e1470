/// A response body `get` writes to a terminal: its text escaped as it streams
/// (``TerminalTextStream``), or refused as binary when a NUL byte shows among its first
/// ``binaryCheckBytes`` bytes, as curl refuses one ("Binary output can mess up your terminal").
///
/// The escaping alone keeps the terminal safe whatever the body holds; the refusal spares a
/// screen of `\u{0}` escapes when the body is an image or an archive, and says how to get its
/// bytes instead (``GetFailure/binaryBody``). Through a pipe, to a file, or with `-o -`, the
/// body is not shown and this type is not used: the bytes go out exactly as they came.
struct TerminalBody: Sendable {
    /// How far into a body a NUL byte marks it binary: curl's limit (`src/tool_cb_wrt.c` checks
    /// each write while fewer than 2,000 bytes went out). Text never holds a NUL; most binary
    /// formats do within their header.
    static let binaryCheckBytes = 2_000

    private var text = TerminalTextStream()
    private var checked = 0

    /// Creates the writer of one body.
    init() {}

    /// The text to write for the next `piece` of the body, or `nil` when the body turned out to
    /// be binary: then nothing more of it may be written.
    mutating func text(for piece: some Collection<UInt8>) -> String? {
        let unchecked = piece.prefix(max(0, Self.binaryCheckBytes - checked))
        checked += unchecked.count
        if unchecked.contains(0) { return nil }
        return text.escaping(piece)
    }

    /// The text to write once the body ended (what ``TerminalTextStream`` held back).
    mutating func end() -> String { text.finishing() }
}
