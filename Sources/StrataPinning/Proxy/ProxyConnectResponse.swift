/// A proxy's answer to `CONNECT`, read from its response head: pure, so hostile answers are
/// tested without a proxy.
///
/// RFC 9110 §9.3.6: any 2xx means the tunnel is open, and the bytes after the head belong to
/// the tunnel. A 2xx answer carries no body, whatever its header fields say; other answers are
/// refusals, whose bodies are never read.
struct ProxyConnectResponse: Equatable {
    /// The status code.
    let statusCode: Int
    /// The reason phrase, without control characters and at most ``maximumReasonLength`` long.
    let reason: String
    /// The authentication schemes of any `Proxy-Authenticate` fields, such as `Basic`.
    let challenges: [String]

    /// How much of a reason phrase is kept for error messages.
    static let maximumReasonLength = 100

    /// Whether the tunnel is open.
    var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// Whether this is an interim answer (`100 Continue`, `103 Early Hints`, ...) that a final
    /// one follows: RFC 9110 §15.2 has a client parse and skip any number of them. `101` is not
    /// one here: it switches protocols, which only an `Upgrade` request may ask for.
    var isInterim: Bool { (100..<200).contains(statusCode) && statusCode != 101 }

    /// How many interim answers are skipped before the proxy is taken to be misbehaving.
    static let maximumInterimCount = 8

    /// The length of the head at the start of `bytes`, through its empty line, or nil while the
    /// empty line has not arrived. Lines may end in CRLF or a bare LF (RFC 9112 §2.2).
    static func headLength(in bytes: [UInt8]) -> Int? {
        var scanned = 0
        return headLength(in: bytes, resumingAt: &scanned)
    }

    /// ``headLength(in:)`` for bytes that grow between calls: the scan starts at `scanned` and,
    /// while the head is incomplete, leaves it where the next call may resume, so a proxy that
    /// trickles its answer costs linear time, not quadratic. The end of a head (`\n\n` or
    /// `\n\r\n`) is at most 3 bytes long, so resuming 3 bytes before the end misses none.
    static func headLength(in bytes: [UInt8], resumingAt scanned: inout Int) -> Int? {
        var index = min(scanned, bytes.count)
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") {
                return next + 2
            }
            index = next
        }
        scanned = max(0, bytes.count - 3)
        return nil
    }

    /// Parses a complete head (as ``headLength(in:)`` delimited it).
    ///
    /// - Throws: ``ProxyError/malformedResponse(proxy:reason:)`` or
    ///   ``ProxyError/responseHeadTooLarge(proxy:limit:)`` (more than `maxHeaderCount` fields).
    init(head: ArraySlice<UInt8>, maxHeaderCount: Int, proxy: String) throws(ProxyError) {
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { line in line.last == UInt8(ascii: "\r") ? line.dropLast() : line }
            .filter { !$0.isEmpty }
        guard let statusLine = lines.first.map({ String(decoding: $0, as: UTF8.self) }) else {
            throw .malformedResponse(proxy: proxy, reason: "an empty response head")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0",
            parts[1].count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1])
        else {
            throw .malformedResponse(proxy: proxy, reason: "the status line '\(Self.printable(statusLine))' is not HTTP/1.x")
        }
        guard lines.count - 1 <= maxHeaderCount else { throw .responseHeadTooLarge(proxy: proxy, limit: maxHeaderCount) }
        var challenges: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw .malformedResponse(proxy: proxy, reason: "a header line without a colon")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            guard name.lowercased() == "proxy-authenticate" else { continue }
            challenges += Self.schemes(String(decoding: line[(colon + 1)...], as: UTF8.self))
        }
        statusCode = status
        reason = parts.count > 2 ? Self.printable(String(parts[2])) : ""
        self.challenges = challenges
    }

    /// The schemes of a `Proxy-Authenticate` value (RFC 9110 §11.6.1): each comma-separated
    /// piece whose first token has no `=` starts a challenge (`Basic realm="x", Negotiate`).
    private static func schemes(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { piece in
            guard let token = piece.split(separator: " ").first, !token.contains("="), !token.contains("\"") else { return nil }
            return printable(String(token))
        }
    }

    /// `text` without control characters and cut to ``maximumReasonLength``, for one-line messages.
    private static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(maximumReasonLength)
                .map(Character.init))
    }
}
