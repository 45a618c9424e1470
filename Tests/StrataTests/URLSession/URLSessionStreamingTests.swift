#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestSupport
import TestServer

@Suite("URLSessionTransport.stream: the head at once, the body as it arrives, nothing left running", .serialized)
struct URLSessionStreamingTests {
    let transport = URLSessionTransport(requestTimeout: .seconds(120))

    @Test("the head and the first chunk of a dripped body reach consume before the server sends the rest")
    func headAndFirstChunkFirst() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst")
            // The rest only once the test saw the head and the first chunk: no clock involved.
            release.wait()
            connection.write("-last")
        }
        let seen = try await transport.stream(HTTPRequest(url: server.url("/drip"))) { head, body in
            var iterator = body.makeAsyncIterator()
            let first = try await iterator.next()
            let early = (head.statusCode, head.headers["Content-Length"], first.map { String(decoding: $0, as: UTF8.self) })
            release.signal()
            var rest = ""
            while let chunk = try await iterator.next() { rest += String(decoding: chunk, as: UTF8.self) }
            return (early, rest)
        }
        #expect(seen.0.0 == 200)
        #expect(seen.0.1 == "10")
        #expect(seen.0.2 == "first")
        #expect(seen.1 == "-last")
    }

    // FoundationNetworking stops a cancelled transfer only when libcurl lets go of the session's
    // work queue, which it keeps while the socket stays readable (URLSessionExchange.cancel()).
    // The body is gzip that libcurl inflates inside that queue's turn (each 3 bytes on the wire
    // are 20 decoded), so the client always falls behind this server, as load or a sanitizer made
    // it do by chance: `stream` used to block in the cancel until the server gave up. The server
    // writes until the consumer has returned, then pauses as a network-paced peer does, and the
    // connection must then close.
    @Test("a consumer that stops early returns at once and cancels the task (its connection closes), and the next request works")
    func earlyStopCancels() async throws {
        let consumerReturned = DispatchSemaphore(value: 0)
        let serverDone = DispatchSemaphore(value: 0)
        let serverSaw = LockedValue<String?>(nil)
        // A gzip member that never ends: one deflate block with fixed codes, a literal, then
        // "copy 10 bytes from 1 back" forever (two copies are these 3 bytes).
        let gzipHeader: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]
        let deflateStart: [UInt8] = [0x3a, 0x81, 0x00]
        let block = [[UInt8]](repeating: [0x08, 0x80, 0x00], count: 87_381).flatMap { $0 }
        let server = try ScriptedHTTPServer { connection in
            if connection.target == "/small" { return _ = connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
            defer { serverDone.signal() }
            connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n")
            connection.write(gzipHeader + deflateStart)
            let giveUp = ContinuousClock.now + .seconds(60)
            while consumerReturned.wait(timeout: .now()) != .success {
                guard ContinuousClock.now < giveUp else {
                    return serverSaw.withLock { $0 = "stream had not returned after 60 s of writes" }
                }
                guard connection.write(block) else { return serverSaw.withLock { $0 = "closed" } }
            }
            connection.waitUntilClosed()
            serverSaw.withLock { $0 = "closed" }
        }
        // The consumer reads one chunk; what piles up before it does is not what is tested.
        let transport = URLSessionTransport(requestTimeout: .seconds(120), limits: .init(maxStreamLagBytes: 1 << 30))
        let first = try await transport.stream(HTTPRequest(url: server.url("/endless"))) { _, body in
            for try await chunk in body { return chunk.count }
            return 0
        }
        consumerReturned.signal()
        #expect(first > 0)
        let done = await offCooperativePool { serverDone.wait(timeout: .now() + 60) == .success }
        #expect(done, "the connection stayed open: the URLSession task was not cancelled")
        #expect(serverSaw.withLock { $0 } == "closed")
        let next = try await transport.send(HTTPRequest(url: server.url("/small")))
        #expect(next.text == "ok")
    }

    @Test("a redirect is followed on its head: consume is called once, with the final response")
    func redirectsInStreamMode() async throws {
        let server = try ScriptedHTTPServer { connection in
            if connection.target == "/old" {
                connection.write("HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 8\r\n\r\nredirect")
            } else {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal")
            }
        }
        let calls = CallCount()
        let (status, text, url) = try await transport.stream(HTTPRequest(url: server.url("/old"))) { head, body in
            calls.add()
            return (head.statusCode, String(decoding: try await body.collect(upTo: 1024), as: UTF8.self), head.url)
        }
        #expect(status == 200)
        #expect(text == "final")
        #expect(url == server.url("/new"))
        #expect(calls.value == 1)
    }

    @Test("a large body streams whole and in order")
    func largeDownload() async throws {
        let block = BodyPattern.bytes(from: 0, count: 256 * 1024)
        let blocks = ResidentMemory.streamedBytes(64 << 20) / block.count
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(blocks * block.count)\r\n\r\n")
            for _ in 0..<blocks where !connection.write(block) { return }
        }
        // What is checked is order and completeness, not lag: a loaded machine's debug-built
        // consumer may fall behind loopback by more than the default 16 MiB (the next test).
        let transport = URLSessionTransport(requestTimeout: .seconds(120), limits: .init(maxStreamLagBytes: 1 << 30))
        let (received, intact) = try await transport.stream(HTTPRequest(url: server.url("/big"))) { _, body in
            var received = 0
            var intact = true
            for try await chunk in body {
                // Every block is the same pattern: a chunk's first and last bytes are where they belong.
                // (Checking every byte would make this debug-built consumer slower than loopback,
                // and a consumer that falls behind fails by design: see the next test.)
                if chunk.first != block[received % block.count]
                    || chunk.last != block[(received + chunk.count - 1) % block.count]
                {
                    intact = false
                }
                received += chunk.count
            }
            return (received, intact)
        }
        #expect(received == blocks * block.count)
        #expect(intact)
    }

    @Test("a consumer more than maxStreamLagBytes behind gets a typed error instead of costing memory (URLSession cannot pause)")
    func laggingConsumerFails() async throws {
        let lagging = URLSessionTransport(requestTimeout: .seconds(120), limits: .init(maxStreamLagBytes: 1 << 20))
        let done = DispatchSemaphore(value: 0)
        let block = [UInt8](repeating: 0x62, count: 64 * 1024)
        let server = try ScriptedHTTPServer { connection in
            // 64 MiB, far more than the loopback socket buffers hold, so libcurl must take
            // most of it while the reader is behind; the writes stop once the lag error ends
            // the transfer.
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(1_024 * block.count)\r\n\r\n")
            for _ in 0..<1_024 where !connection.write(block) { break }
            done.signal()
        }
        let outcome: Result<Int, any Error> = try await lagging.stream(HTTPRequest(url: server.url("/eight"))) { _, body in
            var iterator = body.makeAsyncIterator()
            var read = try await iterator.next()?.count ?? 0
            // Fall behind: read nothing more until the server has sent (or failed to send) its body.
            _ = await offCooperativePool { done.wait(timeout: .now() + 60) }
            do {
                while let chunk = try await iterator.next() { read += chunk.count }
                return .success(read)
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the lagging consumer read the whole body: \(outcome)")
            return
        }
        #expect(error is TransportError, "\(error)")
        #expect(String(describing: error).contains("maxStreamLagBytes"), "\(error)")
    }
}

/// Counts calls from a non-throwing closure in a Sendable way.
final class CallCount: Sendable {
    private let count = LockedValue(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite("URLSessionTransport.stream: responses without a body")
struct URLSessionStreamingNoBodyTests {
    @Test(
        "a HEAD, a 204 and a 304 stream an empty body whatever Content-Length says",
        arguments: [
            ("HEAD", "200 OK"), ("GET", "204 No Content"), ("GET", "304 Not Modified"),
        ])
    func emptyBodies(method: String, status: String) async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 \(status)\r\nContent-Length: 5000\r\n\r\n")
        }
        let transport = URLSessionTransport(requestTimeout: .seconds(60))
        let read = try await transport.stream(HTTPRequest(method: HTTPMethod(rawValue: method), url: server.url("/empty"))) { _, body in
            try await body.collect(upTo: 10_000).count
        }
        #expect(read == 0)
    }
}
