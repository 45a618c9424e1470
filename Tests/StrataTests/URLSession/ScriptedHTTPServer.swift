#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestServer

/// A loopback HTTP/1.1 server whose every exchange is a script run on the connection's thread:
/// it reads a request head, then the script streams the request body (counting and summing it,
/// never holding it) and writes whatever bytes it wants, as slowly as it wants. For the streaming
/// tests, where the server must generate or swallow far more bytes than a test may keep.
final class ScriptedHTTPServer: Sendable {
    private let server: LoopbackHTTPServer
    var port: Int { server.port }
    func url(_ path: String) -> URL { server.url(path) }

    /// Starts a server answering every request with `script`.
    init(_ script: @escaping @Sendable (inout ScriptedConnection) -> Void) throws {
        server = try LoopbackHTTPServer(channel: { PlainSocketChannel(fd: $0) }) { channel in
            var connection = ScriptedConnection(socket: channel)
            while connection.readHead() { script(&connection) }
        }
    }
}

/// One connection as a script sees it.
struct ScriptedConnection {
    fileprivate let socket: any LoopbackByteChannel
    private var buffer: [UInt8] = []
    /// The request line and header lines of the current request.
    private(set) var head: [String] = []

    fileprivate init(socket: any LoopbackByteChannel) { self.socket = socket }

    var target: String { head.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "" }

    func header(_ name: String) -> String? {
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Reads the next request head; false when the client closed the connection.
    fileprivate mutating func readHead() -> Bool {
        while true {
            if let end = buffer.indices.dropLast(3).first(where: {
                buffer[$0] == 13 && buffer[$0 + 1] == 10
                    && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }) {
                head = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                buffer.removeFirst(end + 4)
                return true
            }
            guard fill() else { return false }
        }
    }

    /// Reads the request body (Content-Length or chunked), giving each piece to `each`.
    mutating func readBody(_ each: (ArraySlice<UInt8>) -> Void) {
        if header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while let line = readLine(), let size = Int(line.split(separator: ";").first ?? "", radix: 16) {
                if size == 0 {
                    while let trailer = readLine(), !trailer.isEmpty {}
                    return
                }
                read(size, each)
                _ = readLine()
            }
        } else if let length = header("Content-Length").flatMap(Int.init) {
            read(length, each)
        }
    }

    private mutating func read(_ count: Int, _ each: (ArraySlice<UInt8>) -> Void) {
        var left = count
        while left > 0 {
            if buffer.isEmpty { guard fill() else { return } }
            let take = min(left, buffer.count)
            each(buffer[..<take])
            buffer.removeFirst(take)
            left -= take
        }
    }

    private mutating func readLine() -> String? {
        while true {
            if let end = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            guard fill() else { return nil }
        }
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        let count = chunk.withUnsafeMutableBytes { socket.receive(into: $0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// Blocks until the client closes the connection (or resets it), dropping what it sends meanwhile.
    func waitUntilClosed() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while chunk.withUnsafeMutableBytes({ socket.receive(into: $0) }) > 0 {}
    }

    /// Writes `bytes`; false when the client is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { socket.send($0) } }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }
}
