import Foundation

/// The bytes of a request or response body, which may arrive over time: an `AsyncSequence` of
/// chunks.
///
/// A body is one of three things:
/// - **Bytes in memory** (``init(_:)-(Data)``, ``init(_:)-(String)``): replayable, length known.
/// - **A file** (``init(contentsOf:)``): read in chunks as it is sent, never whole, off Swift's
///   cooperative threads; replayable (every iteration reads the file again), length taken when the
///   body is created. A file that changes length while it is sent fails with
///   ``HTTPBodyError/lengthMismatch(expected:actual:)`` rather than send a short or long body.
/// - **A single-pass stream** (``init(_:length:)``): any `AsyncSequence` of chunks, iterated at
///   most once. A second iteration throws ``HTTPBodyError/alreadyIterated``.
///
/// ``isReplayable`` is what decides whether a layer may send a request again: ``RetryTransport``,
/// ``ReauthTransport`` and 307/308 redirects resend a replayable body and never a single-pass one.
///
/// ```swift
/// let upload = HTTPRequest(method: .put, url: artifactURL,
///                          body: try HTTPBody(contentsOf: URL(fileURLWithPath: "build.tar.gz")))
/// let small = try await body.collect(upTo: 1 << 20)  // at most 1 MiB, or a typed error
/// ```
public struct HTTPBody: Sendable, AsyncSequence {
    /// One chunk of bytes, as it was read or produced.
    public typealias Element = ArraySlice<UInt8>
    /// What iterating a body may throw: ``HTTPBodyError``, or what the underlying sequence or file throws.
    public typealias Failure = any Error

    /// Where the bytes come from.
    enum Source: Sendable {
        case bytes([UInt8])
        case file(FileBodySource)
        case singlePass(SinglePassBodySource)
    }

    let source: Source

    /// The number of bytes the body holds, when known in advance (it is sent as `Content-Length`);
    /// `nil` for a stream of unknown length (sent chunked over HTTP/1.1).
    public let length: Int64?

    /// Creates a body from bytes in memory.
    public init(_ data: Data) {
        self.init(bytes: [UInt8](data))
    }

    /// Creates a body from the UTF-8 bytes of `string`.
    public init(_ string: String) {
        self.init(bytes: Array(string.utf8))
    }

    /// Creates a body from bytes in memory.
    init(bytes: [UInt8]) {
        source = .bytes(bytes)
        length = Int64(bytes.count)
    }

    /// Creates a body that reads `file` in chunks each time it is iterated.
    ///
    /// - Parameter file: A `file:` URL of a regular file the process can read.
    /// - Throws: ``HTTPBodyError/unreadableFile(path:reason:)`` when it is not a readable regular file.
    public init(contentsOf file: URL) throws {
        let source = try FileBodySource(file)
        self.source = .file(source)
        length = source.length
    }

    /// Creates a single-pass body from `chunks`, iterated at most once.
    ///
    /// - Parameters:
    ///   - chunks: The bytes, in order. Iteration starts when the body is sent.
    ///   - length: The total number of bytes `chunks` will produce, or `nil` when unknown. A
    ///     sequence that produces another number fails with ``HTTPBodyError/lengthMismatch(expected:actual:)``.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64?)
    where Chunks.Element == ArraySlice<UInt8> {
        source = .singlePass(SinglePassBodySource(chunks))
        self.length = length
    }

    /// Whether the body can be iterated more than once, and so a request carrying it sent again:
    /// `true` for bytes in memory and files, `false` for a single-pass stream.
    public var isReplayable: Bool {
        switch source {
        case .bytes, .file: true
        case .singlePass: false
        }
    }

    /// The whole body when it is held in memory, `nil` when it is a file or a stream. Lets a
    /// terminal write a small body in one call, with no iteration.
    package var bytesInMemory: [UInt8]? {
        if case .bytes(let bytes) = source { return bytes }
        return nil
    }

    /// Creates an iterator over the body's chunks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: source, expectedLength: length)
    }
}
