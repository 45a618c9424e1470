/// One option a command accepts, and its help sentence.
struct OptionSpec: Sendable {
    /// Its spellings, short first, such as `["-H", "--header"]`; the last one names it in messages.
    let names: [String]
    /// The value's placeholder, such as `<file>`; `nil` for a flag.
    let value: String?
    /// Whether it may be given more than once (its values are kept in order).
    let repeatable: Bool
    /// What it does, as a sentence.
    let help: String

    init(_ names: String..., value: String? = nil, repeatable: Bool = false, help: String) {
        self.names = names
        self.value = value
        self.repeatable = repeatable
        self.help = help
    }

    /// The long spelling, which keys its parsed values.
    var key: String { names.last ?? "" }

    /// `-H, --header <name: value>`, as help and messages show it.
    var synopsis: String { names.joined(separator: ", ") + (value.map { " \($0)" } ?? "") }

    /// `--header <name: value>`, as a missing-value message shows it.
    var longSynopsis: String { key + (value.map { " \($0)" } ?? "") }
}
