/// The few ANSI styles the demo uses (ECMA-48 SGR), applied only where ``Terminal`` allows colour.
enum TextStyle: String {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"

    /// `text` wrapped in this style when `enabled`, unchanged otherwise.
    func apply(_ text: String, enabled: Bool) -> String {
        enabled ? "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" : text
    }
}
