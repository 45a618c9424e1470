import Dispatch
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// A connection opened while the host's first one is full must not send more streams than the
/// server allows before the server's own SETTINGS say so: RFC 9113 §6.5.2 leaves the limit
/// unknown until then, and a server that allows 2 refuses a burst of 4 (REFUSED_STREAM, each one
/// sent again).
@Suite(
    "HTTP/2: a new connection assumes what its siblings learned of the server's stream limit",
    .timeLimit(.minutes(1)))
struct HTTP2AssumedConcurrencyTests {
    @Test(
        "a second connection carries no more streams than the first one's SETTINGS allow before its own SETTINGS arrive; nothing is refused or sent again"
    )
    func secondConnectionAssumesTheFirstOnesLimit() async throws {
        let (firstFull, fillsFirst) = AsyncStream<Void>.makeStream()
        let (secondUp, opensSecond) = AsyncStream<Void>.makeStream()
        let releaseFirst = DispatchSemaphore(value: 0)
        let releaseSecond = DispatchSemaphore(value: 0)
        let sentBeforeSettings = LockedValue<Int?>(nil)
        let server = try ScriptedHTTP2Server { connection in
            if connection.index == 0 {
                connection.handshake(settings: [(HTTP2Frame.maxConcurrentStreams, 2)])
                for stream in connection.awaitRequests(1) { connection.respond(stream: stream) }
                let held = connection.awaitRequests(2)
                fillsFirst.yield()
                releaseFirst.wait()
                for stream in held { connection.respond(stream: stream) }
                Self.serve(connection)
                return
            }
            // The second connection's server is slow to send its SETTINGS (its first frame, which
            // a server may send after reading the client's): what arrives until the client has
            // read them was sent on the client's assumption alone.
            var streams: [UInt32] = []
            while streams.isEmpty, let frame = connection.readFrame() {
                if frame.kind == .headers { streams.append(frame.streamID) }
            }
            opensSecond.yield()
            releaseSecond.wait()
            // Frames arrive in the order they were sent: every stream the client opened before it
            // read these SETTINGS precedes their acknowledgement (a stream opened in the same turn
            // may follow it: nghttp2 sends acknowledgements first).
            connection.write(.settings([(HTTP2Frame.maxConcurrentStreams, UInt32(2))]))
            while let frame = connection.readFrame() {
                if frame.kind == .headers { streams.append(frame.streamID) }
                guard frame.kind == .settings else { continue }
                if frame.flags & HTTP2Frame.ack != 0 { break }
                connection.write(.settings(ack: true))
            }
            sentBeforeSettings.withLock { $0 = streams.count }
            for stream in streams { connection.respond(stream: stream) }
            Self.serve(connection)
        }
        defer {
            // A failure before the releases below must not leave the server's threads waiting.
            releaseSecond.signal()
            releaseFirst.signal()
            server.stop()
        }
        var configuration = PinningTransport.Configuration(requestTimeout: .seconds(10))
        configuration.maxConnectionsPerHost = 2
        let pinned = try Pinning.transport(configuration: configuration)
        let events = PinningEventLog()
        let transport = events.observing(pinned)
        let url = server.url("/")
        // The first connection learns the limit, then two requests fill it.
        #expect(try await transport.send(Pinning.get(url)).statusCode == 200)
        var requests = (0..<2).map { _ in Task { try await transport.send(Pinning.get(url)) } }
        for await _ in firstFull { break }
        // The next request opens the second connection.
        requests.append(Task { try await transport.send(Pinning.get(url)) })
        for await _ in secondUp { break }
        // Waits spin until the client has routed what they wait for; the suite's time limit ends
        // them (with the test) if it never does.
        while pinned.http2Counts(host: "localhost", port: server.port).connections < 2 {
            try Task.checkCancellation()
            await Task.yield()
        }
        // Three more, routed while the second connection has not heard the server's limit.
        requests += (0..<3).map { _ in Task { try await transport.send(Pinning.get(url)) } }
        while pinned.http2Counts(host: "localhost", port: server.port).streams < 6 {
            try Task.checkCancellation()
            await Task.yield()
        }
        // Before its SETTINGS, the second connection takes the first one's limit as its own.
        #expect(pinned.http2Loads(host: "localhost", port: server.port).map(\.maxConcurrentStreams) == [2, 2])
        releaseSecond.signal()
        releaseFirst.signal()
        for request in requests { #expect(try await request.value.statusCode == 200) }
        // The second connection's opening request and one more; a stream sent in the turn that
        // read the SETTINGS may follow their acknowledgement.
        #expect(sentBeforeSettings.withLock { $0 }.map { (1...2).contains($0) } == true)
        #expect(events.retries.isEmpty)
        #expect(server.connectionCount == 2)
    }

    /// Answers every request until the client closes the connection.
    private static func serve(_ connection: HTTP2ScriptConnection) {
        while let frame = connection.readFrame() {
            switch frame.kind {
            case .headers: connection.respond(stream: frame.streamID)
            case .settings where frame.flags & HTTP2Frame.ack == 0: connection.write(.settings(ack: true))
            case .ping where frame.flags & HTTP2Frame.ack == 0: connection.write(.ping(ack: true, payload: frame.payload))
            default: break
            }
        }
    }
}
