import Foundation
import Strata
import TestServer

/// A scripted (and, when a test wants, hostile) HTTP/2 server on loopback: TLS with the fixture
/// certificate and ALPN `h2`, then each connection runs the test's script on its own thread,
/// reading and writing raw ``HTTP2Frame``s. Nothing is validated or answered automatically
/// unless the script asks (``HTTP2ScriptConnection/handshake(settings:)``,
/// ``HTTP2ScriptConnection/awaitRequests(_:)``), so malformed frame sequences are easy to send.
public final class ScriptedHTTP2Server: Sendable {
    /// The TLS server underneath (connection counts, handshakes).
    public let tls: TLSLoopbackServer
    private let received = LockedValue<[Int: Int]>([:])

    /// Starts the server on 127.0.0.1 with an OS-chosen port.
    ///
    /// - Parameters:
    ///   - alpn: The ALPN protocol selected (`h2`; nil to select none, as an HTTP/1.1-only server).
    ///   - script: Runs once per accepted connection, on that connection's thread.
    public init(
        identity: TLSLoopbackServer.Identity = .leafOnly, alpn: String? = "h2",
        script: @escaping @Sendable (HTTP2ScriptConnection) -> Void
    ) throws {
        let counter = LockedValue(0)
        let received = received
        tls = try TLSLoopbackServer(identity: identity, alpn: alpn) { channel in
            let index = counter.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            let connection = HTTP2ScriptConnection(channel: channel, index: index) { bytes in
                received.withLock { $0[index, default: 0] += bytes }
            }
            script(connection)
        }
    }

    /// The port the server listens on.
    public var port: Int { tls.port }

    /// `https://<host>:<port><path>`; the fixture leaves name `localhost` and `127.0.0.1`.
    public func url(_ path: String, host: String = "localhost") -> URL { tls.url(path, host: host) }

    /// How many connections were accepted (handshake or not).
    public var connectionCount: Int { tls.http.connectionCount }

    /// Bytes each connection received from the client after the TLS handshake, by connection index.
    public var bytesReceived: [Int: Int] { received.withLock { $0 } }

    /// Stops listening and closes every connection.
    public func stop() { tls.http.stop() }
}

/// One connection of a ``ScriptedHTTP2Server``, as its script sees it. Blocking; one thread.
public final class HTTP2ScriptConnection {
    /// 0 for the server's first connection, 1 for the second, ...
    public let index: Int
    private let channel: any LoopbackByteChannel
    private let onReceive: (Int) -> Void
    private var reader = HTTP2FrameReader(expectingClientMagic: true)
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(channel: any LoopbackByteChannel, index: Int, onReceive: @escaping (Int) -> Void) {
        self.channel = channel
        self.index = index
        self.onReceive = onReceive
    }

    /// The client's next frame; nil once the client closed the connection.
    public func readFrame() -> HTTP2Frame? {
        while true {
            if let frame = reader.next() { return frame }
            let count = scratch.withUnsafeMutableBytes { channel.receive(into: $0) }
            guard count > 0 else { return nil }
            onReceive(count)
            reader.append(scratch[0..<count])
        }
    }

    /// Sends frames, in order, in one write; false once the client is gone.
    @discardableResult
    public func write(_ frames: HTTP2Frame...) -> Bool {
        write(bytes: frames.flatMap(\.bytes))
    }

    /// Sends raw bytes; false once the client is gone.
    @discardableResult
    public func write(bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { channel.send($0) }
    }

    /// The opening a well-behaved server makes: sends its SETTINGS (with `settings`) and
    /// acknowledges the client's.
    public func handshake(settings: [(UInt16, UInt32)] = []) {
        write(.settings(settings))
        while let frame = readFrame() {
            if frame.kind == .settings, frame.flags & HTTP2Frame.ack == 0 {
                write(.settings(ack: true))
                return
            }
        }
    }

    /// Reads until `count` requests (HEADERS frames) arrived, acknowledging SETTINGS and
    /// answering PINGs meanwhile; returns their stream identifiers in arrival order (fewer if
    /// the client closed first).
    @discardableResult
    public func awaitRequests(_ count: Int) -> [UInt32] {
        var streams: [UInt32] = []
        while streams.count < count, let frame = readFrame() {
            switch frame.kind {
            case .headers: streams.append(frame.streamID)
            case .settings where frame.flags & HTTP2Frame.ack == 0: write(.settings(ack: true))
            case .ping where frame.flags & HTTP2Frame.ack == 0: write(.ping(ack: true, payload: frame.payload))
            default: break
            }
        }
        return streams
    }

    /// Sends a complete `200` response with `body` on `stream`.
    public func respond(stream: UInt32, status: Int = 200, body: String = "ok") {
        write(
            .headers(stream: stream, [(":status", String(status)), ("content-length", String(body.utf8.count))]),
            .data(stream: stream, Array(body.utf8), endStream: true))
    }

    /// Reads frames until the client closes the connection; returns them.
    @discardableResult
    public func drain() -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = readFrame() { frames.append(frame) }
        return frames
    }
}
