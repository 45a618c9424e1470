/// The command line of `strata-bench`: a subcommand, then flags.
///
///     strata-bench [layers | pinned | pinned-layers | urlsession | stores | events | http2 | locks | download | decode | sse | idle] [--json] [--quick]
///                  [--rounds N] [--requests N] [--only NAME[$]] [--builtin-server]
///                  [--evict-bytes N]
///
/// Without a subcommand it runs `layers` then `pinned`, the figures of issue 14.
struct BenchOptions: Sendable {
    enum Command: String, CaseIterable, Sendable {
        case all, layers, pinned, urlsession, stores, events, http2, locks, download, decode, sse, idle
        case pinnedLayers = "pinned-layers"
    }

    var command = Command.all
    /// Machine-readable output: one JSON object on standard output, and nothing else there.
    var json = false
    /// A short run for CI: fewer requests and rounds; the figures are rough.
    var quick = false
    /// Interleaved rounds per scenario; the median is reported.
    var rounds: Int?
    /// Requests per scenario and round.
    var requests: Int?
    /// Runs only the scenarios whose name contains this text (for `perf record` or callgrind);
    /// a trailing `$` anchors it at the name's end (`"alone c=1$"` is not `"alone c=16"`).
    var only: String?
    /// `pinned` uses the built-in TLS server even when nginx is installed (`--builtin-server`):
    /// for valgrind, under which nginx cannot be started.
    var builtInServer = false
    /// `layers` only: the in-memory terminal reads this many bytes (at most 1 GiB), one per
    /// cache line, and runs a block of code before each answer (`--evict-bytes N`), so the layers
    /// find their code and data evicted, as a trip through the kernel's network path leaves them.
    /// For callgrind's cache simulation (`COLD=1 scripts/layer-instructions.sh`): the eviction
    /// takes longer than a layer's work.
    var evictBytes = 0
    /// Positional arguments after the subcommand (the `urlsession`, `http2` and `locks` scenarios' counts).
    var positional: [String] = []

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        if let first = rest.first, let command = Command(rawValue: first) {
            options.command = command
            rest = rest.dropFirst()
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--builtin-server": options.builtInServer = true
            case "--rounds": options.rounds = try positiveNumber(after: argument, in: &rest)
            case "--requests": options.requests = try positiveNumber(after: argument, in: &rest)
            case "--evict-bytes":
                options.evictBytes = try positiveNumber(after: argument, in: &rest)
                guard options.evictBytes <= 1 << 30 else { throw UsageError(message: "--evict-bytes is at most 1073741824 (1 GiB)") }
            case "--only":
                guard let value = rest.popFirst() else { throw UsageError(message: "--only needs a scenario name") }
                options.only = value
            case let other where other.hasPrefix("-"):
                throw UsageError(message: "unknown option \(other)")
            default:
                options.positional.append(argument)
            }
        }
        return options
    }

    /// Whether the scenario called `name` runs (see `--only`).
    func includes(_ name: String) -> Bool {
        guard let only else { return true }
        guard only.hasSuffix("$") else { return name.localizedCaseInsensitiveContains(only) }
        return name.lowercased().hasSuffix(only.dropLast().lowercased())
    }

    private static func positiveNumber(after flag: String, in rest: inout ArraySlice<String>) throws(UsageError) -> Int {
        guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
            throw UsageError(message: "\(flag) needs a positive number")
        }
        return value
    }
}

/// A command line `strata-bench` does not understand.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String {
        "strata-bench: \(message)\nusage: strata-bench [layers | pinned | pinned-layers | urlsession | stores | events | http2 | locks | download | decode | sse | idle] "
            + "[--json] [--quick] [--rounds N] [--requests N] [--only NAME[$]] [--builtin-server] [--evict-bytes N]"
    }
}
