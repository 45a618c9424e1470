/// Why a content-coded body could not be decoded.
enum ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not valid in the coding; `reason` is the library's own words.
    case corrupt(ContentCoding, reason: String)
    /// The body ended before the coding's end marker: bytes are missing.
    case truncated(ContentCoding)
    /// Bytes followed the coding's end marker.
    case trailingBytes(ContentCoding)
    /// The decoder could not get the memory it needs.
    case outOfMemory(ContentCoding)

    /// A sentence saying what was wrong with the body.
    var description: String {
        switch self {
        case .corrupt(let coding, let reason):
            "the \(coding)-coded body is corrupt (\(reason))"
        case .truncated(let coding):
            "the \(coding)-coded body ended before its end marker: it was cut short"
        case .trailingBytes(let coding):
            "bytes follow the end of the \(coding)-coded body"
        case .outOfMemory(let coding):
            "the \(coding) decoder could not allocate its state"
        }
    }
}
