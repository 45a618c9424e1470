import Strata

/// A ``/Strata/StrataLogger`` that keeps every message in memory, for tests that assert what a stack
/// logged (and what it did not: search ``text`` for a secret).
public final class RecordingLogger: StrataLogger {
    /// One recorded message.
    package struct Entry: Sendable, Hashable {
        /// The level it was logged at.
        package var level: LogLevel
        /// The message, such as `request.start`.
        package var message: String
        /// Its structured metadata.
        package var metadata: LogMetadata
    }

    /// The least severe level recorded.
    public let minimumLevel: LogLevel
    private let recorded = LockedValue<[Entry]>([])

    /// Creates a logger that records messages at `minimumLevel` and above (default: everything).
    public init(minimumLevel: LogLevel = .trace) {
        self.minimumLevel = minimumLevel
    }

    /// Whether `level` is at least ``minimumLevel``.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// Records the message.
    public func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {
        recorded.withLock { $0.append(Entry(level: level, message: message, metadata: metadata)) }
    }

    /// Every message recorded so far, in order.
    package var entries: [Entry] { recorded.withLock { $0 } }

    /// The messages in order, such as `["GET https://api.example.com/todos", …]`.
    package var messages: [String] { entries.map(\.message) }

    /// The names of the events logged by a `LoggingTransport`, in order (their `event`
    /// metadata), such as `["request.start", "retry.scheduled", "request.response"]`.
    public var eventNames: [String] { entries.compactMap { $0.metadata["event"] } }

    /// Everything recorded, one line per message with all metadata: search it for a secret.
    public var text: String {
        entries.map { entry in
            ([entry.level.description, entry.message] + entry.metadata.keys.sorted().map { "\($0)=\(entry.metadata[$0] ?? "")" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }
}
