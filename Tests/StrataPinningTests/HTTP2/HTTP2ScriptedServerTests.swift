import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// HTTP/2 against a scripted server that sends exactly what each test needs, malformed frame
/// sequences included. The scripts answer by stream identifier; nothing here decodes HPACK.
@Suite("PinningTransport over HTTP/2 against a scripted, sometimes hostile, server")
struct HTTP2ScriptedServerTests {
    private static func transport(configuration: PinningTransport.Configuration = .init(requestTimeout: .seconds(10)))
        throws -> PinningTransport
    {
        try Pinning.transport(configuration: configuration)
    }

    /// Sends `count` GETs at once; returns each one's outcome, in order.
    private static func concurrentGets(
        _ count: Int, transport: any Transport,
        url: URL
    ) async -> [Result<HTTPResponse, any Error>] {
        await withTaskGroup(of: (Int, Result<HTTPResponse, any Error>).self) { group in
            for index in 0..<count {
                group.addTask {
                    do { return (index, .success(try await transport.send(Pinning.get(url)))) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<HTTPResponse, any Error>?](repeating: nil, count: count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    @Test("a server that selects h2 gets HTTP/2: one connection, events name the protocol")
    func selectsHTTP2() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            for stream in connection.awaitRequests(1) { connection.respond(stream: stream, body: "over h2") }
            connection.drain()
        }
        let events = PinningEventLog()
        let pinned = try Self.transport()
        let response = try await events.observing(pinned).send(Pinning.get(server.url("/")))
        #expect(response.statusCode == 200)
        #expect(response.text == "over h2")
        #expect(events.all.contains { if case .streamOpened(_, 1, .get, 0) = $0 { true } else { false } })
        #expect(events.all.contains { if case .streamResponseRead(_, 1, 200, 7) = $0 { true } else { false } })
        #expect(events.http1Responses == 0)
        #expect(pinned.http2Counts(host: "localhost", port: server.port).connections == 1)
    }

    @Test("a malformed frame sequence fails every stream on the connection with a typed error and closes it; the next request reconnects")
    func malformedFrameSequence() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            if connection.index == 0 {
                connection.awaitRequests(3)
                // A SETTINGS frame whose length is not a multiple of 6: FRAME_SIZE_ERROR, a connection error.
                connection.write(HTTP2Frame(.settings, payload: [0, 3, 0, 0]))
            } else {
                for stream in connection.awaitRequests(1) { connection.respond(stream: stream, body: "fresh") }
            }
            connection.drain()
        }
        let transport = try Self.transport()
        let results = await Self.concurrentGets(3, transport: transport, url: server.url("/"))
        for result in results {
            guard case let .failure(error) = result, let error = error as? TransportError else {
                Issue.record("expected a TransportError, got \(result)")
                continue
            }
            #expect(error.kind == .invalidResponse)
            guard case .connectionError(.frameSizeError, _)? = error.underlying as? HTTP2Error else {
                Issue.record("expected a FRAME_SIZE_ERROR connection error, got \(String(describing: error.underlying))")
                continue
            }
            #expect(error.url != nil)
        }
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "fresh")
        #expect(server.connectionCount == 2)
    }

    @Test("a stream the server resets fails alone with connectionLost; its siblings on the connection succeed")
    func serverResetsOneStream() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            let streams = connection.awaitRequests(3)
            for (position, stream) in streams.enumerated() {
                if position == 1 {
                    connection.write(.rstStream(stream: stream, code: HTTP2ErrorCode.internalError.rawValue))
                } else {
                    connection.respond(stream: stream)
                }
            }
            connection.drain()
        }
        let events = PinningEventLog()
        let results = await Self.concurrentGets(3, transport: events.observing(try Self.transport()), url: server.url("/"))
        #expect(events.all.filter { if case .streamFailed(_, _, .connectionLost, _) = $0 { true } else { false } }.count == 1)
        #expect(events.http2Responses == 2)
        let failures = results.compactMap { result -> TransportError? in
            if case let .failure(error) = result { error as? TransportError } else { nil }
        }
        #expect(failures.count == 1)
        #expect(failures.first?.kind == .connectionLost)
        #expect(failures.first?.underlying as? HTTP2Error == .streamReset(.internalError))
        #expect(server.connectionCount == 1)
    }

    @Test("GOAWAY: requests above the last stream are sent again on a new connection, POST included")
    func goAwayRetriesUnprocessed() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            if connection.index == 0 {
                let streams = connection.awaitRequests(3)
                let first = streams.min() ?? 1
                connection.write(.goAway(lastStream: first, code: 0, debug: "maintenance"))
                connection.respond(stream: first, body: "first")
            } else {
                for stream in connection.awaitRequests(2) { connection.respond(stream: stream, body: "second") }
            }
            connection.drain()
        }
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport())
        let url = server.url("/")
        async let a = transport.send(Pinning.post(url, body: Data("1".utf8)))
        async let b = transport.send(Pinning.post(url, body: Data("2".utf8)))
        async let c = transport.send(Pinning.post(url, body: Data("3".utf8)))
        let bodies = try await [a, b, c].map(\.text).sorted()
        #expect(bodies == ["first", "second", "second"])
        #expect(server.connectionCount == 2)
        #expect(events.retries.count == 2)
    }

    @Test(
        "a single-pass body whose stream the server refused (GOAWAY before it) after reading it began is not sent again: it cannot be read twice"
    )
    func refusedSinglePassBodyNotResent() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            if connection.index == 0 {
                // Stream 1 is above the last stream processed (0): the request was not processed.
                _ = connection.awaitRequests(1)
                connection.write(.goAway(lastStream: 0, code: 0, debug: "maintenance"))
            } else {
                for stream in connection.awaitRequests(1) { connection.respond(stream: stream, body: "sent twice") }
            }
            connection.drain()
        }
        let transport = try Self.transport()
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            continuation.yield(Array("one pass".utf8)[...])
            continuation.finish()
        }
        let request = HTTPRequest(method: .put, url: server.url("/"), body: HTTPBody(chunks, length: nil))
        let error = await Pinning.error { try await transport.send(request) }
        #expect((error as? TransportError)?.kind == .connectionLost)
        // Not sent again anywhere (a second read would have failed as invalidRequest).
        #expect(server.connectionCount == 1)
    }

    @Test("a file body whose stream the server refused (GOAWAY before it) is sent again, read from the start, on a new connection")
    func refusedFileBodyResent() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            if connection.index == 0 {
                _ = connection.awaitRequests(1)
                connection.write(.goAway(lastStream: 0, code: 0, debug: "maintenance"))
            } else {
                for stream in connection.awaitRequests(1) { connection.respond(stream: stream, body: "stored") }
            }
            connection.drain()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-h2-refused-\(UUID().uuidString)")
        try Data("a file, read twice".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // 60 s: this is about the resend, not speed; a loaded full run has stalled it past 10 s.
        let transport = try Self.transport(configuration: .init(requestTimeout: .seconds(60)))
        let request = HTTPRequest(method: .put, url: server.url("/"), body: try HTTPBody(contentsOf: file))
        #expect(try await transport.send(request).text == "stored")
        #expect(server.connectionCount == 2)
    }

    @Test("a POST refused with REFUSED_STREAM after its response head arrived is not sent again: the server processed it")
    func refusedAfterResponseHeadNotResent() async throws {
        let requests = LockedValue(0)
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            // Counts every request, on this connection or a later one: a resent POST shows up here.
            while let stream = connection.awaitRequests(1).first {
                if requests.withLock({ count -> Int in
                    count += 1
                    return count
                }) == 1 {
                    connection.write(
                        .headers(stream: stream, [(":status", "200")]),
                        .rstStream(stream: stream, code: HTTP2ErrorCode.refusedStream.rawValue))
                } else {
                    connection.respond(stream: stream, body: "sent twice")
                }
            }
        }
        let error = await Pinning.error { try await Self.transport().send(Pinning.post(server.url("/orders"), body: Data("1".utf8))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .connectionLost)
        #expect(failure.underlying as? HTTP2Error == .streamReset(.refusedStream))
        #expect(requests.withLock { $0 } == 1)
    }

    @Test("a server that sends GOAWAY after its response closes the connection; the next request opens a new one")
    func goAwayWhileIdle() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            guard let stream = connection.awaitRequests(1).first else { return }
            connection.respond(stream: stream, body: "connection \(connection.index)")
            if connection.index == 0 { connection.write(.goAway(lastStream: stream, code: 0)) }
            connection.drain()
        }
        let transport = try Self.transport()
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "connection 0")
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "connection 1")
        #expect(server.connectionCount == 2)
    }

    @Test("a silent server is detected by PING: requests fail with connectionLost, not at the request deadline")
    func silentServer() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            connection.awaitRequests(1)
            connection.drain() // never answers, not even PINGs
        }
        let transport = try Self.transport(
            configuration: .init(
                requestTimeout: TestTimeScale.scaled(.seconds(60)),
                http2PingInterval: .milliseconds(100)))
        let start = ContinuousClock.now
        let error = await Pinning.error { try await transport.send(Pinning.post(server.url("/"), body: Data("x".utf8))) }
        let transportError = try #require(error as? TransportError)
        #expect(transportError.kind == .connectionLost)
        guard case .pingUnanswered? = transportError.underlying as? HTTP2Error else {
            Issue.record("expected pingUnanswered, got \(String(describing: transportError.underlying))")
            return
        }
        // The underlying error proves PING found it; the bound, a third of the request timeout,
        // only catches a detection that waited for the deadline instead.
        #expect(ContinuousClock.now - start < TestTimeScale.scaled(.seconds(20)))
    }

    @Test("cancelling one request resets only its stream; the others complete")
    func cancelOneStream() async throws {
        let resets = LockedValue<[UInt32]>([])
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            let streams = connection.awaitRequests(3)
            arrival.yield()
            // Wait for the client's RST_STREAM before answering the other two.
            while let frame = connection.readFrame() {
                if frame.kind == .rstStream {
                    resets.withLock { $0.append(frame.streamID) }
                    break
                }
            }
            for stream in streams where !resets.withLock({ $0.contains(stream) }) { connection.respond(stream: stream) }
            connection.drain()
        }
        let transport = try Self.transport()
        let url = server.url("/")
        let first = Task { try await transport.send(Pinning.get(url)) }
        let second = Task { try await transport.send(Pinning.get(url)) }
        let doomed = Task { try await transport.send(Pinning.get(url)) }
        for await _ in arrived { break }
        doomed.cancel()
        #expect(await Pinning.error { try await doomed.value } is CancellationError)
        #expect(try await first.value.statusCode == 200)
        #expect(try await second.value.statusCode == 200)
        #expect(resets.withLock { $0.count } == 1)
    }

    @Test("a pin mismatch is refused before the first frame: the server receives nothing after the handshake")
    func pinMismatchSendsNoFrame() async throws {
        let server = try ScriptedHTTP2Server { connection in connection.drain() }
        let transport = try Pinning.transport(pins: [Fixtures.Pin.leafRSA])
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/"))) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect((error as? TransportError)?.serverTrustError != nil)
        #expect(server.bytesReceived.values.reduce(0, +) == 0)
    }

    @Test("httpVersion .http2Only against a server that selects no protocol fails with tls and sends no request")
    func http2OnlyRefusesHTTP1Server() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(text: "http/1.1"))
        let transport = try Pinning.transport(configuration: .init(requestTimeout: .seconds(10), httpVersion: .http2Only))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/"))) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect(server.http.requestCount == 0)
    }

    @Test("a server that selects no protocol is spoken to over HTTP/1.1 when both are offered")
    func fallsBackToHTTP1() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(text: "http/1.1"))
        let events = PinningEventLog()
        let pinned = try Pinning.transport()
        #expect(try await events.observing(pinned).send(Pinning.get(server.url("/"))).text == "http/1.1")
        #expect(events.http1Responses == 1)
        #expect(pinned.http2Counts(host: "localhost", port: server.port).connections == 0)
    }

    @Test("a burst of requests to a new host opens one connection while its protocol is unknown")
    func burstOpensOneConnection() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            for stream in connection.awaitRequests(20) { connection.respond(stream: stream) }
            connection.drain()
        }
        let transport = try Self.transport()
        let results = await Self.concurrentGets(20, transport: transport, url: server.url("/"))
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 })
        #expect(server.connectionCount == 1)
    }
}
