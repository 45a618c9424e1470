import Foundation

/// Reads HTTP/1.1 requests from one connection (RFC 9112), within ``ServerLimits``.
///
/// Anything it cannot frame safely is refused with a status and the connection is closed:
/// an oversized head (`431`) or body (`413`), a transfer coding other than chunked (`501`), and
/// malformed request lines, fields, lengths or chunks (`400`), including a request with both
/// `Content-Length` and `Transfer-Encoding` (RFC 9112 §6.3 ¶3: a smuggling vector).
struct RequestReader {
    /// What the next read produced.
    enum Outcome {
        /// A complete request; `keepAlive` tells whether another may follow on this connection.
        case request(SandboxRequest, keepAlive: Bool)
        /// The client closed the connection, went quiet past the timeout, or broke off mid-request.
        case closed
        /// The request cannot be served; send this response and close.
        case refused(SandboxResponse)
    }

    private static let lineEnd = Data("\r\n".utf8)
    private static let headEnd = Data("\r\n\r\n".utf8)
    private static let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

    private let channel: any ByteChannel
    private let limits: ServerLimits
    private var buffer = Data()
    /// One receive's worth, reused across reads.
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    init(channel: any ByteChannel, limits: ServerLimits) {
        self.channel = channel
        self.limits = limits
    }

    /// Reads the next request.
    mutating func next() -> Outcome {
        guard let headEnd = readUntil(Self.headEnd, limit: limits.maxHeadBytes) else {
            return buffer.count > limits.maxHeadBytes ? .refused(Self.refusal(431, "the request head is too large")) : .closed
        }
        // One read may bring a whole oversized head at once.
        guard headEnd - buffer.startIndex <= limits.maxHeadBytes else {
            return .refused(Self.refusal(431, "the request head is too large"))
        }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<(headEnd + Self.headEnd.count))
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, Self.isToken(requestLine[0]), requestLine[1].hasPrefix("/"),
            requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0"
        else {
            return .refused(Self.refusal(400, "malformed request line"))
        }
        guard lines.count <= limits.maxHeaderFields else { return .refused(Self.refusal(431, "too many header fields")) }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            // RFC 9112 §5.1: no whitespace before the colon; §5.2: obsolete line folding is refused.
            guard let colon = line.firstIndex(of: ":"), Self.isToken(line[..<colon]) else {
                return .refused(Self.refusal(400, "malformed header field"))
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .init(charactersIn: " \t"))))
        }
        var request = SandboxRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data())
        switch readBody(of: request) {
        case .request(let withBody, _): request = withBody
        case let other: return other
        }
        let keepAlive =
            requestLine[2] == "HTTP/1.1"
            && !(request.header("Connection")?.lowercased().contains("close") ?? false)
        return .request(request, keepAlive: keepAlive)
    }

    /// `request` with the body its head frames (RFC 9112 §6.3), or why there is none.
    private mutating func readBody(of request: SandboxRequest) -> Outcome {
        let lengths = request.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        let codings = request.headers.filter { $0.name.lowercased() == "transfer-encoding" }.map(\.value)
        if !codings.isEmpty {
            guard lengths.isEmpty else { return .refused(Self.refusal(400, "both Content-Length and Transfer-Encoding")) }
            guard codings.count == 1, codings[0].lowercased() == "chunked" else {
                return .refused(Self.refusal(501, "only the chunked transfer coding is supported"))
            }
            continueIfExpected(request)
            return readChunked(request)
        }
        guard let first = lengths.first else { return body(request, Data()) }
        guard lengths.allSatisfy({ $0 == first }), first.count <= 18, first.allSatisfy({ ("0"..."9").contains($0) }),
            let length = Int(first)
        else {
            return .refused(Self.refusal(400, "malformed Content-Length"))
        }
        guard length <= limits.maxBodyBytes else { return .refused(Self.refusal(413, "the body is too large")) }
        continueIfExpected(request)
        return readExactly(length).map { body(request, $0) } ?? .closed
    }

    private func body(_ request: SandboxRequest, _ body: Data) -> Outcome {
        var request = request
        request.body = body
        return .request(request, keepAlive: false)
    }

    /// `request` with its de-chunked body (RFC 9112 §7.1).
    private mutating func readChunked(_ request: SandboxRequest) -> Outcome {
        var chunks = Data()
        while true {
            guard let lineEnd = readUntil(Self.lineEnd, limit: limits.maxHeadBytes) else { return .closed }
            let line = String(decoding: buffer[buffer.startIndex..<lineEnd], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<(lineEnd + 2))
            let digits = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard (1...8).contains(digits.count), let size = Int(digits, radix: 16) else {
                return .refused(Self.refusal(400, "malformed chunk size"))
            }
            if size == 0 { return skipTrailers() ? body(request, chunks) : .closed }
            guard chunks.count + size <= limits.maxBodyBytes else { return .refused(Self.refusal(413, "the body is too large")) }
            guard let chunk = readExactly(size + 2) else { return .closed }
            guard chunk.suffix(2) == Self.lineEnd else { return .refused(Self.refusal(400, "a chunk does not end with CRLF")) }
            chunks.append(chunk.prefix(size))
        }
    }

    private mutating func skipTrailers() -> Bool {
        var skipped = 0
        while let lineEnd = readUntil(Self.lineEnd, limit: limits.maxHeadBytes - skipped) {
            let length = lineEnd - buffer.startIndex
            buffer.removeSubrange(buffer.startIndex..<(lineEnd + 2))
            if length == 0 { return true }
            skipped += length + 2
        }
        return false
    }

    /// RFC 9110 §10.1.1: a client that sent `Expect: 100-continue` may wait for this before the body.
    private func continueIfExpected(_ request: SandboxRequest) {
        guard request.header("Expect")?.lowercased() == "100-continue" else { return }
        _ = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8).withUnsafeBytes { channel.send($0) }
    }

    /// The index where `delimiter` starts in the buffer, reading more as needed; `nil` at end of
    /// stream or when `limit` bytes came without it.
    private mutating func readUntil(_ delimiter: Data, limit: Int) -> Data.Index? {
        while true {
            if let range = buffer.range(of: delimiter) { return range.lowerBound }
            guard buffer.count <= limit, fill() else { return nil }
        }
    }

    private mutating func readExactly(_ count: Int) -> Data? {
        while buffer.count < count { guard fill() else { return nil } }
        defer { buffer.removeFirst(count) }
        return Data(buffer.prefix(count))
    }

    /// Appends what the next receive brings; `false` at end of stream, on error or timeout.
    private mutating func fill() -> Bool {
        let channel = channel
        let received = scratch.withUnsafeMutableBytes { channel.receive(into: $0) }
        buffer.append(contentsOf: scratch.prefix(received))
        return received > 0
    }

    private static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.allSatisfy(tokenCharacters.contains)
    }

    private static func refusal(_ status: Int, _ reason: String) -> SandboxResponse {
        SandboxResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data((reason + "\n").utf8))
    }
}
