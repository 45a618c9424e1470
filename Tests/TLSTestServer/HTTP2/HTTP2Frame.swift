/// HTTP/2 frames written and read byte by byte (RFC 9113 §4, HPACK RFC 7541 literals), for test
/// servers that must send exactly what a test asks, malformed sequences included. No
/// compression state, no validation: a script decides what is valid.
public struct HTTP2Frame: Sendable, Hashable, CustomStringConvertible {
    /// Frame types (RFC 9113 §6).
    public enum Kind: UInt8, Sendable {
        case data = 0, headers = 1, priority = 2, rstStream = 3, settings = 4, pushPromise = 5, ping = 6,
            goAway = 7, windowUpdate = 8, continuation = 9
    }

    /// END_STREAM (DATA, HEADERS) and ACK (SETTINGS, PING) share bit 0x1.
    public static let endStream: UInt8 = 0x1
    public static let ack: UInt8 = 0x1
    public static let endHeaders: UInt8 = 0x4
    public static let padded: UInt8 = 0x8

    /// The 24-byte connection preface every client starts with.
    public static let clientMagic = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public var type: UInt8
    public var flags: UInt8
    public var streamID: UInt32
    public var payload: [UInt8]

    /// Creates a frame of any type, known or not.
    public init(type: UInt8, flags: UInt8 = 0, streamID: UInt32 = 0, payload: [UInt8] = []) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    /// Creates a frame of a known type.
    public init(_ kind: Kind, flags: UInt8 = 0, streamID: UInt32 = 0, payload: [UInt8] = []) {
        self.init(type: kind.rawValue, flags: flags, streamID: streamID, payload: payload)
    }

    /// The frame's known type, if it has one.
    public var kind: Kind? { Kind(rawValue: type) }

    /// The frame on the wire: 9-byte header, then the payload.
    public var bytes: [UInt8] {
        let length = payload.count
        return [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            type, flags,
        ] + Self.uint32(streamID & 0x7FFF_FFFF) + payload
    }

    public var description: String {
        "\(kind.map { "\($0)" } ?? "type \(type)") stream \(streamID) flags 0x\(String(flags, radix: 16)) (\(payload.count) bytes)"
    }

    // MARK: - Common frames

    /// SETTINGS with `parameters` (identifier, value), or an empty SETTINGS ACK.
    public static func settings(_ parameters: [(UInt16, UInt32)] = [], ack: Bool = false) -> HTTP2Frame {
        HTTP2Frame(
            .settings, flags: ack ? Self.ack : 0,
            payload: parameters.flatMap { uint16($0.0) + uint32($0.1) })
    }

    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    public static let maxConcurrentStreams: UInt16 = 0x3
    /// SETTINGS_INITIAL_WINDOW_SIZE.
    public static let initialWindowSize: UInt16 = 0x4

    /// HEADERS carrying `fields` as HPACK literals (no indexing, no Huffman).
    public static func headers(
        stream: UInt32, _ fields: [(String, String)], endStream: Bool = false,
        endHeaders: Bool = true
    ) -> HTTP2Frame {
        HTTP2Frame(
            .headers, flags: (endStream ? Self.endStream : 0) | (endHeaders ? Self.endHeaders : 0),
            streamID: stream, payload: headerBlock(fields))
    }

    /// DATA.
    public static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool = false) -> HTTP2Frame {
        HTTP2Frame(.data, flags: endStream ? Self.endStream : 0, streamID: stream, payload: bytes)
    }

    /// RST_STREAM with `code`.
    public static func rstStream(stream: UInt32, code: UInt32) -> HTTP2Frame {
        HTTP2Frame(.rstStream, streamID: stream, payload: uint32(code))
    }

    /// GOAWAY naming the last stream processed.
    public static func goAway(lastStream: UInt32, code: UInt32, debug: String = "") -> HTTP2Frame {
        HTTP2Frame(.goAway, payload: uint32(lastStream) + uint32(code) + Array(debug.utf8))
    }

    /// PING (or its ACK) with an 8-byte payload.
    public static func ping(ack: Bool = false, payload: [UInt8] = Array(repeating: 0, count: 8)) -> HTTP2Frame {
        HTTP2Frame(.ping, flags: ack ? Self.ack : 0, payload: payload)
    }

    /// WINDOW_UPDATE.
    public static func windowUpdate(stream: UInt32, increment: UInt32) -> HTTP2Frame {
        HTTP2Frame(.windowUpdate, streamID: stream, payload: uint32(increment))
    }

    // MARK: - HPACK (RFC 7541)

    /// A header block of "literal header field without indexing — new name" representations
    /// (§6.2.2), plain strings.
    public static func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { [0x00] + string($0.0) + string($0.1) }
    }

    /// "Literal header field with incremental indexing — new name" (§6.2.1): the field also
    /// enters the dynamic table, where ``indexed(_:)`` can refer to it (the newest is index 62).
    public static func indexedLiteral(_ name: String, _ value: String) -> [UInt8] {
        [0x40] + string(name) + string(value)
    }

    /// "Indexed header field" (§6.1): one byte or more naming a table entry.
    public static func indexed(_ index: Int) -> [UInt8] {
        integer(index, prefixBits: 7, firstByte: 0x80)
    }

    private static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return integer(bytes.count, prefixBits: 7, firstByte: 0) + bytes
    }

    /// §5.1 integer representation.
    private static func integer(_ value: Int, prefixBits: Int, firstByte: UInt8) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else { return [firstByte | UInt8(value)] }
        var bytes = [firstByte | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128) | 0x80)
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Splits a byte stream into ``HTTP2Frame``s as bytes arrive (the client preface skipped first).
public struct HTTP2FrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var expectsMagic: Bool

    /// Creates a reader; `expectingClientMagic` for the server side of a connection.
    public init(expectingClientMagic: Bool) {
        expectsMagic = expectingClientMagic
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil until more bytes arrive.
    public mutating func next() -> HTTP2Frame? {
        if expectsMagic {
            guard buffer.count >= HTTP2Frame.clientMagic.count else { return nil }
            buffer.removeFirst(HTTP2Frame.clientMagic.count)
            expectsMagic = false
        }
        guard buffer.count >= 9 else { return nil }
        let length = Int(buffer[0]) << 16 | Int(buffer[1]) << 8 | Int(buffer[2])
        guard buffer.count >= 9 + length else { return nil }
        let streamID = (UInt32(buffer[5]) << 24 | UInt32(buffer[6]) << 16 | UInt32(buffer[7]) << 8 | UInt32(buffer[8])) & 0x7FFF_FFFF
        let frame = HTTP2Frame(type: buffer[3], flags: buffer[4], streamID: streamID, payload: Array(buffer[9..<(9 + length)]))
        buffer.removeFirst(9 + length)
        return frame
    }

    /// Every complete frame buffered so far.
    public mutating func all() -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = next() { frames.append(frame) }
        return frames
    }
}
