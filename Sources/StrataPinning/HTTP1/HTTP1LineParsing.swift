import Strata

/// Pure parsers for the single lines of an HTTP/1.1 response: the status line, a header or
/// trailer field line, and a chunk-size line. Each takes the line's bytes without CR LF and
/// either returns what it means or throws the ``HTTP1ResponseError`` that names the fault.
enum HTTP1LineParsing {
    typealias Line = UnsafeRawBufferPointer.SubSequence

    /// A header or trailer field, with the meaning of the fields that frame the message.
    struct Field: Equatable {
        /// What a field means for message framing and connection reuse.
        enum Meaning: Equatable {
            case other
            /// `Content-Length` whose (possibly repeated, RFC 9110 §8.6) values all agree.
            case contentLength(Int)
            /// `Transfer-Encoding`: how many codings it lists and whether the last is `chunked`.
            case transferEncoding(codingCount: Int, lastIsChunked: Bool)
            /// `Connection`: whether it lists the `close` and `keep-alive` options.
            case connection(close: Bool, keepAlive: Bool)
        }

        var name: String
        var value: String
        var meaning: Meaning
    }

    private static let contentLengthName = Array("content-length".utf8)
    private static let transferEncodingName = Array("transfer-encoding".utf8)
    private static let connectionName = Array("connection".utf8)
    private static let chunkedCoding = Array("chunked".utf8)
    private static let closeOption = Array("close".utf8)
    private static let keepAliveOption = Array("keep-alive".utf8)
    private static let httpSlash = Array("HTTP/".utf8)
    /// 18 decimal digits always fit in an `Int`; anything longer is refused rather than wrapped.
    private static let maxContentLengthDigits = 18
    /// 15 hex digits always fit in an `Int`.
    private static let maxChunkSizeDigits = 15

    /// Parses `HTTP/1.x SP 3DIGIT [SP reason-phrase]` (RFC 9112 §4; the reason may be absent).
    /// The status code is everything up to the next space, judged by ``HTTPStatusCodeRule``, the
    /// rule HTTP/2's `:status` follows too.
    static func statusLine(_ bytes: Line) throws(HTTP1ResponseError) -> (HTTP1Response.Version, Int) {
        let invalid = HTTP1ResponseError.invalidStatusLine(excerpt: HTTPGrammar.excerpt(bytes))
        guard bytes.count >= 9 else { throw invalid }
        let base = bytes.startIndex
        for offset in 0..<5 where bytes[base + offset] != httpSlash[offset] { throw invalid }
        guard HTTPGrammar.isDigit(bytes[base + 5]), bytes[base + 6] == UInt8(ascii: "."),
            HTTPGrammar.isDigit(bytes[base + 7]), bytes[base + 8] == HTTPGrammar.space
        else { throw invalid }
        guard bytes[base + 5] == UInt8(ascii: "1") else {
            throw .unsupportedVersion(excerpt: HTTPGrammar.excerpt(bytes[base..<base + 8]))
        }
        // RFC 9110 §2.5: a higher minor version is understood as the highest one we speak.
        let version: HTTP1Response.Version = bytes[base + 7] == UInt8(ascii: "0") ? .http1_0 : .http1_1
        let codeStart = base + 9
        let codeEnd = bytes[codeStart...].firstIndex(of: HTTPGrammar.space) ?? bytes.endIndex
        let status: Int
        do {
            status = try HTTPStatusCodeRule.statusCode(bytes[codeStart..<codeEnd])
        } catch {
            throw .invalidStatusCode(error)
        }
        if codeEnd < bytes.endIndex {
            for byte in bytes[(codeEnd + 1)...] where !HTTPGrammar.isFieldValueCharacter(byte) { throw invalid }
        }
        return (version, status)
    }

    /// Parses `field-name ":" OWS field-value OWS` (RFC 9112 §5.1).
    static func field(_ line: Line) throws(HTTP1ResponseError) -> Field {
        guard let first = line.first else { throw .invalidHeaderField(excerpt: HTTPGrammar.excerpt(line)) }
        if HTTPGrammar.isWhitespace(first) { throw .obsoleteLineFolding(excerpt: HTTPGrammar.excerpt(line)) }
        var colon = line.startIndex
        while colon < line.endIndex, HTTPHeaders.isTokenCharacter(line[colon]) { colon += 1 }
        // No whitespace between name and colon (RFC 9112 §5.1), and a name of at least one tchar.
        guard colon > line.startIndex, colon < line.endIndex, line[colon] == HTTPGrammar.colon else {
            throw .invalidHeaderField(excerpt: HTTPGrammar.excerpt(line))
        }
        let name = line[line.startIndex..<colon]
        let value = HTTPGrammar.trimmingWhitespace(line[(colon + 1)...])
        for byte in value where !HTTPGrammar.isFieldValueCharacter(byte) {
            throw .invalidHeaderField(excerpt: HTTPGrammar.excerpt(line))
        }
        return Field(name: string(name), value: string(value), meaning: try meaning(name: name, value: value))
    }

    /// Parses `1*HEXDIG [ BWS ";" chunk-ext ]` (RFC 9112 §7.1.1) and returns the chunk size.
    static func chunkSize(_ line: Line) throws(HTTP1ResponseError) -> Int {
        let invalid = HTTP1ResponseError.invalidChunkSize(excerpt: HTTPGrammar.excerpt(line))
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = HTTPGrammar.hexValue(line[index]) {
            guard index - line.startIndex < maxChunkSizeDigits else { throw invalid }
            size = size << 4 | digit
            index += 1
        }
        guard index > line.startIndex else { throw invalid }
        while index < line.endIndex, HTTPGrammar.isWhitespace(line[index]) { index += 1 }
        guard index < line.endIndex else { return size }
        // Extensions carry nothing this client uses; they only have to be free of control bytes.
        guard line[index] == HTTPGrammar.semicolon else { throw invalid }
        for byte in line[index...] where !HTTPGrammar.isFieldValueCharacter(byte) { throw invalid }
        return size
    }

    private static func meaning(name: Line, value: Line) throws(HTTP1ResponseError) -> Field.Meaning {
        if HTTPGrammar.equalsIgnoringCase(name, contentLengthName) { return try contentLength(value) }
        if HTTPGrammar.equalsIgnoringCase(name, transferEncodingName) {
            var count = 0
            var lastIsChunked = false
            forEachListElement(value) { element in
                count += 1
                lastIsChunked = HTTPGrammar.equalsIgnoringCase(element, chunkedCoding)
            }
            return .transferEncoding(codingCount: count, lastIsChunked: lastIsChunked)
        }
        if HTTPGrammar.equalsIgnoringCase(name, connectionName) {
            var close = false
            var keepAlive = false
            forEachListElement(value) { element in
                if HTTPGrammar.equalsIgnoringCase(element, closeOption) { close = true }
                if HTTPGrammar.equalsIgnoringCase(element, keepAliveOption) { keepAlive = true }
            }
            return .connection(close: close, keepAlive: keepAlive)
        }
        return .other
    }

    /// `Content-Length = 1*DIGIT`, possibly as a list of identical values (RFC 9110 §8.6).
    private static func contentLength(_ value: Line) throws(HTTP1ResponseError) -> Field.Meaning {
        var agreed: Int?
        var start = value.startIndex
        while true {
            var end = start
            while end < value.endIndex, value[end] != HTTPGrammar.comma { end += 1 }
            let element = HTTPGrammar.trimmingWhitespace(value[start..<end])
            guard !element.isEmpty, element.count <= maxContentLengthDigits,
                element.allSatisfy(HTTPGrammar.isDigit)
            else {
                throw .invalidContentLength(excerpt: HTTPGrammar.excerpt(value))
            }
            let length = element.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if let agreed, agreed != length { throw .conflictingContentLength(first: agreed, second: length) }
            agreed = length
            guard end < value.endIndex else { return .contentLength(length) }
            start = end + 1
        }
    }

    /// Calls `body` with each non-empty, trimmed element of a comma-separated list (RFC 9110 §5.6.1).
    private static func forEachListElement(_ value: Line, _ body: (Line) -> Void) {
        var start = value.startIndex
        while start <= value.endIndex {
            var end = start
            while end < value.endIndex, value[end] != HTTPGrammar.comma { end += 1 }
            let element = HTTPGrammar.trimmingWhitespace(value[start..<end])
            if !element.isEmpty { body(element) }
            start = end + 1
        }
    }

    private static func string(_ bytes: Line) -> String {
        // Obs-text bytes that are not UTF-8 become U+FFFD; header values are not Latin-1 here.
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }
}
