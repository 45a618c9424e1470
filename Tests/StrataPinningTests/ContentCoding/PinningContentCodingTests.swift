import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

/// Content coding on the pinned path against the project's TLS loopback server serving
/// pre-encoded bodies: what is offered, what the caller gets from `send` and `stream`, and the
/// typed errors for bodies that are wrong.
@Suite("PinningTransport decodes compressed responses (loopback)")
struct PinningContentCodingTests {
    /// A server answering `/<name>` with `bytes` under `Content-Encoding: <coding>`.
    static func server(serving forms: [(path: String, coding: String, bytes: [UInt8])]) throws -> TLSLoopbackServer {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        for form in forms {
            server.http.route(
                form.path,
                response: .init(
                    headers: [
                        ("Content-Type", "application/json"),
                        ("Content-Encoding", form.coding),
                    ],
                    body: Data(form.bytes)))
        }
        return server
    }

    static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }

    @Test("every supported coding decodes to the same JSON through send and stream, without Content-Encoding or Content-Length")
    func decodesEveryCoding() async throws {
        let forms = CodingFixtures.allForms.map {
            (
                path: "/\($0.name.replacingOccurrences(of: " ", with: "-"))",
                coding: $0.coding.rawValue, bytes: $0.bytes
            )
        }
        let server = try Self.server(serving: forms)
        let transport = try Pinning.transport()
        for form in forms {
            let response = try await transport.send(Pinning.get(server.url(form.path)))
            #expect(response.statusCode == 200)
            #expect(Array(response.body) == CodingFixtures.json, "send \(form.path)")
            #expect(response.headers["Content-Encoding"] == nil)
            #expect(response.headers["Content-Length"] == nil)
            #expect(response.headers["Content-Type"] == "application/json")

            let (head, streamed, chunks) = try await transport.stream(Pinning.get(server.url(form.path))) { head, body in
                var bytes: [UInt8] = []
                var chunks = 0
                for try await chunk in body {
                    bytes += chunk
                    chunks += 1
                }
                return (head, bytes, chunks)
            }
            #expect(streamed == CodingFixtures.json, "stream \(form.path)")
            #expect(chunks >= CodingFixtures.json.count / maxOutputBytes, "decoded piece by piece")
            #expect(head.headers["Content-Encoding"] == nil)
            #expect(head.headers["Content-Length"] == nil)
        }
        let sent = server.http.requests
        #expect(sent.count == forms.count * 2)
        for request in sent {
            #expect(request.header("Accept-Encoding") == ContentCoding.supported.map(\.rawValue).joined(separator: ", "))
            #expect(request.header("User-Agent") == "Strata/\(StrataRelease.version)")
        }
    }

    @Test("a caller that sets Accept-Encoding (or User-Agent) gets its own header sent and the raw coded bytes")
    func callersOwnHeaders() async throws {
        let gzip = CodingFixtures.coded(.gzip)
        let server = try Self.server(serving: [("/gz", "gzip", gzip)])
        let transport = try Pinning.transport()
        let request = Pinning.get(server.url("/gz"), headers: ["Accept-Encoding": "gzip", "User-Agent": "mine/1"])
        let response = try await transport.send(request)
        #expect(Array(response.body) == gzip)
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.headers["Content-Length"] == String(gzip.count))
        let streamed = try await transport.stream(request) { head, body in
            #expect(head.headers["Content-Encoding"] == "gzip")
            return Array(try await body.collect(upTo: 1 << 20))
        }
        #expect(streamed == gzip)
        #expect(server.http.requests.allSatisfy { $0.header("Accept-Encoding") == "gzip" && $0.header("User-Agent") == "mine/1" })
    }

    @Test("with decoding disabled nothing is offered and a coded response arrives as sent")
    func disabled() async throws {
        let gzip = CodingFixtures.coded(.gzip)
        let server = try Self.server(serving: [("/gz", "gzip", gzip)])
        let transport = try Pinning.transport(configuration: .init(requestTimeout: .seconds(10), contentDecoding: .disabled))
        let response = try await transport.send(Pinning.get(server.url("/gz")))
        #expect(Array(response.body) == gzip)
        #expect(server.http.requests.first?.header("Accept-Encoding") == nil)
    }

    @Test("a body cut before the coding's end fails as invalidResponse, from send and while streaming, in every coding")
    func truncated() async throws {
        let forms = CodingFixtures.allForms.map {
            (
                path: "/\($0.coding.rawValue)-\($0.name.count)", coding: $0.coding.rawValue,
                bytes: Array($0.bytes.prefix($0.bytes.count / 2))
            )
        }
        let server = try Self.server(serving: forms)
        let transport = try Pinning.transport()
        for form in forms {
            let error = await Pinning.error { try await transport.send(Pinning.get(server.url(form.path))) }
            let failure = try #require(error as? TransportError, "\(form.path): \(String(describing: error))")
            #expect(failure.kind == .invalidResponse)
            #expect(failure.message.contains("cut short"), "\(failure.message)")
            #expect(failure.underlying as? ContentDecodingError == .truncated(ContentCoding(rawValue: form.coding)!))

            await #expect(throws: TransportError.self) {
                try await transport.stream(Pinning.get(server.url(form.path))) { _, body in
                    for try await _ in body {}
                }
            }
        }
    }

    @Test("corrupt bytes fail as invalidResponse with the decoder's reason")
    func corrupt() async throws {
        var damaged = CodingFixtures.coded(.gzip)
        damaged[damaged.count - 6] ^= 0xFF // inside the CRC-32 trailer
        let server = try Self.server(serving: [("/not-gzip", "gzip", Array("plain text".utf8)), ("/crc", "gzip", damaged)])
        let transport = try Pinning.transport()
        for path in ["/not-gzip", "/crc"] {
            let error = await Pinning.error { try await transport.send(Pinning.get(server.url(path))) }
            let failure = try #require(error as? TransportError)
            #expect(failure.kind == .invalidResponse)
            #expect(failure.message.contains("corrupt"), "\(failure.message)")
        }
    }

    @Test("the buffered limit counts decoded bytes; ResponseBodyLimit raises or lowers it for one call and is named when passed")
    func bufferedLimitOnDecodedBytes() async throws {
        let gzip = CodingFixtures.coded(.gzip)
        let json = CodingFixtures.json
        let server = try Self.server(serving: [("/gz", "gzip", gzip)])
        server.http.route("/plain", response: .init(body: Data(json)))
        var limits = HTTPLimits()
        limits.maxResponseBodyBytes = json.count / 2 // above the coded size, below the decoded one
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(10), limits: limits,
                httpVersion: .http1Only))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/gz"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidResponse)
        #expect(failure.message.contains("PinningTransport.Configuration.limits.maxResponseBodyBytes"), "\(failure.message)")

        // Raised for one call: the coded body and a plain one larger than the configured limit.
        for path in ["/gz", "/plain"] {
            let raised = try await ResponseBodyLimit.withMaxBytes(json.count) {
                try await transport.send(Pinning.get(server.url(path)))
            }
            #expect(Array(raised.body) == json, "\(path)")
        }
        // The next call has the configured limit again.
        #expect(await Pinning.error { try await transport.send(Pinning.get(server.url("/plain"))) } is TransportError)

        // Lowered for one call, named in the error.
        let lowered = await Pinning.error {
            try await ResponseBodyLimit.withMaxBytes(1000) { try await transport.send(Pinning.get(server.url("/gz"))) }
        }
        let loweredFailure = try #require(lowered as? TransportError)
        #expect(loweredFailure.kind == .invalidResponse)
        #expect(loweredFailure.message.contains("ResponseBodyLimit.withMaxBytes"), "\(loweredFailure.message)")
    }

    @Test("ETagTransport above stores the decoded body and answers a 304 with it, a 304's Content-Encoding not painted on")
    func etagStoresDecodedBodies() async throws {
        let gzip = CodingFixtures.coded(.gzip)
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/todos") { request in
            var headers: [(name: String, value: String)] = [
                ("ETag", "W/\"v1\""), ("Vary", "Accept-Encoding"),
                ("Content-Encoding", "gzip"), ("Content-Type", "application/json"),
            ]
            guard request.header("If-None-Match") == "W/\"v1\"" else { return .init(headers: headers, body: Data(gzip)) }
            headers.append(("Cache-Control", "max-age=0"))
            return .init(status: 304, headers: headers)
        }
        let store = InMemoryETagStore()
        let stack = ETagTransport(inner: try Pinning.transport(), store: store)
        let first = try await stack.send(Pinning.get(server.url("/todos")))
        #expect(Array(first.body) == CodingFixtures.json)
        let second = try await stack.send(Pinning.get(server.url("/todos")))
        #expect(second.source == .revalidated)
        #expect(Array(second.body) == CodingFixtures.json)
        #expect(second.headers["Content-Encoding"] == nil)
        #expect(second.headers["Cache-Control"] == "max-age=0") // the 304's fields did freshen the entry
        // A caller asking for gzip itself is another variant (Vary: Accept-Encoding): raw bytes, stored apart.
        let raw = try await stack.send(Pinning.get(server.url("/todos"), headers: ["Accept-Encoding": "gzip"]))
        #expect(raw.source == .network)
        #expect(Array(raw.body) == gzip)
        let decodedAgain = try await stack.send(Pinning.get(server.url("/todos")))
        #expect(Array(decodedAgain.body) == CodingFixtures.json)
        #expect(decodedAgain.headers["Content-Encoding"] == nil)
    }
}
