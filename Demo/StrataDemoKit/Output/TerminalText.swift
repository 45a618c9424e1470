/// Text from the network or a certificate made safe to print: every control character a
/// terminal acts on becomes a visible escape, so a hostile server cannot move the cursor, clear
/// the screen, retitle the window or hide text (ECMA-48: C0 and C1 controls; a C1 such as
/// U+009B is a whole CSI on its own).
///
/// Every line `get` and `pin` print from a response, an event, an error from below or a
/// certificate name goes through ``escaping(_:keepingLineBreaks:)``, and nothing else escapes.
enum TerminalText {
    /// `text` with each C0 control (U+0000–U+001F), DEL (U+007F) and C1 control
    /// (U+0080–U+009F) written as `\u{1B}`, `\u{7F}`, `\u{9B}`.
    ///
    /// - Parameters:
    ///   - text: What came from the network or a certificate.
    ///   - keepingLineBreaks: Keep `\n` as is, for a message of several lines that this program
    ///     composed (a pinning failure lists one pin per line); every other control is escaped.
    static func escaping(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0, keepingLineBreaks) }) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar, keepingLineBreaks) else {
                escaped.append(scalar)
                continue
            }
            escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        }
        return String(escaped)
    }

    private static func isControl(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool) -> Bool {
        if keepingLineBreaks && scalar == "\n" { return false }
        return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
