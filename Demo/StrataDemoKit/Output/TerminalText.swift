import Foundation

/// Text from the network or a certificate made safe to print: every control character a
/// terminal acts on becomes a visible escape, so a hostile server cannot move the cursor, clear
/// the screen, retitle the window or hide text (ECMA-48: C0 and C1 controls; a C1 such as
/// U+009B is a whole CSI on its own).
///
/// Every line `get` and `pin` print from a response, an event, an error from below or a
/// certificate name goes through ``escaping(_:keepingLineBreaks:)``; a body on its way to a
/// terminal goes through ``TerminalTextStream``, and JSON lines through ``escapingJSON(_:)``.
/// Nothing else escapes.
enum TerminalText {
    /// `text` with each C0 control (U+0000–U+001F), DEL (U+007F) and C1 control
    /// (U+0080–U+009F) written as `\u{1B}`, `\u{7F}`, `\u{9B}`.
    ///
    /// - Parameters:
    ///   - text: What came from the network or a certificate.
    ///   - keepingLineBreaks: Keep `\n` as is, for a message of several lines that this program
    ///     composed (a pinning failure lists one pin per line); every other control is escaped.
    static func escaping(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isEscaped($0, keepingLineBreaks) }) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar, keepingLineBreaks) else {
                escaped.append(scalar)
                continue
            }
            append(escapeOf: scalar, to: &escaped)
        }
        return String(escaped)
    }

    /// `json` (UTF-8 JSON text) with DEL and each C1 control written as a JSON escape
    /// (`\u007f`, `\u009b`): the same JSON value, inert on a terminal.
    ///
    /// `JSONEncoder` escapes C0 itself, as RFC 8259 §7 requires, but writes DEL and C1 raw, which
    /// the RFC allows. Those characters only ever occur inside JSON strings, where `\u00XX` is
    /// valid, so a parser reads back exactly the string that was encoded.
    static func escapingJSON(_ json: Data) -> Data {
        // In UTF-8, DEL is 0x7F and every C1 control starts with 0xC2 (U+0080–U+009F are
        // 0xC2 0x80–0x9F): JSON without either byte has nothing to escape.
        guard json.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in String(decoding: json, as: UTF8.self).unicodeScalars {
            guard (0x7F...0x9F).contains(scalar.value) else {
                escaped.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            escaped.append(contentsOf: "\\u00\(hex)".unicodeScalars)
        }
        return Data(String(escaped).utf8)
    }

    /// Whether a terminal would act on `scalar`: a C0 control, DEL or a C1 control.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Appends `\u{1B}` for U+001B, the form every escaped control takes.
    static func append(escapeOf scalar: Unicode.Scalar, to text: inout String.UnicodeScalarView) {
        text.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
    }

    private static func isEscaped(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool) -> Bool {
        if keepingLineBreaks && scalar == "\n" { return false }
        return isControl(scalar)
    }
}
