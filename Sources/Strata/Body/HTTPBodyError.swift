/// Why a body could not be read or collected.
public enum HTTPBodyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A single-pass body was iterated a second time (for example, by a layer that tried to send
    /// it again). Use a replayable body (bytes or a file) for requests that may be resent.
    case alreadyIterated
    /// ``HTTPBody/collect(upTo:)`` met more than `limit` bytes.
    case tooLarge(limit: Int)
    /// The body produced another number of bytes than its declared ``HTTPBody/length``.
    case lengthMismatch(expected: Int64, actual: Int64)
    /// A file body's file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// A response body was read after the ``Transport/stream(_:_:)`` call that delivered it
    /// returned: the connection was released then. Read the body inside `consume`.
    case readAfterRelease
    /// A body made from a Foundation `InputStream` (a `URLRequest`'s `httpBodyStream`) failed.
    case unreadableStream(reason: String)

    /// A sentence saying what went wrong and what to do.
    public var description: String {
        switch self {
        case .alreadyIterated:
            "the body is a single-pass stream and was already read; make it replayable (bytes or a file) to send it more than once"
        case .tooLarge(let limit):
            "the body is larger than the \(limit)-byte limit; read it as a stream, or raise the limit"
        case .lengthMismatch(let expected, let actual):
            "the body declared \(expected) bytes but produced \(actual)\(actual > expected ? " or more" : ""); "
                + "declare the right length, or nil when it is not known (a file must not change while it is sent)"
        case .unreadableFile(let path, let reason):
            "cannot read the body file \(path): \(reason)"
        case .readAfterRelease:
            "the response body was read after stream(_:_:) returned, when its connection was already released; read it inside the consume closure"
        case .unreadableStream(let reason):
            "cannot read the request's body stream: \(reason)"
        }
    }
}
