import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// A gigabyte of zeros gzipped to about 1.3 MB, served by the TLS loopback server: the
/// guards stop it where they say, with an error naming the setting, from `send` and `stream`.
@Suite("PinningTransport stops decompression bombs")
struct DecompressionBombTests {
    /// 1 GiB of zeros as one gzip member, about 1.3 MiB.
    // Bytes, not Data: a Data held by a static is invisible to LeakSanitizer (its storage pointer
    // sits in an enum payload), which then reports it as leaked at exit.
    static let bomb = [UInt8](ZlibEncoder.zerosBomb())

    static func server() throws -> TLSLoopbackServer {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/bomb", response: .init(headers: [("Content-Encoding", "gzip")], body: Data(bomb)))
        return server
    }

    /// What reading the body of `/bomb` through `stream` came to: the bytes read before the error it threw.
    static func streamed(_ transport: PinningTransport, from server: TLSLoopbackServer) async throws -> (read: Int, error: TransportError?)
    {
        try await transport.stream(Pinning.get(server.url("/bomb"))) { _, body in
            var read = 0
            do {
                for try await chunk in body { read += chunk.count }
            } catch let error as TransportError {
                return (read, error)
            }
            return (read, nil)
        }
    }

    @Test("the bomb is a megabyte on the wire for a gigabyte decoded")
    func bombShape() throws {
        #expect(Self.bomb.count < 1_500_000) // full flushes cost a little: about 790 to 1
        let decoder = try ContentCoding.gzip.makeDecoder()
        decoder.feed(Array(Self.bomb.prefix(4096))[...])
        var decoded = 0
        while let piece = try decoder.nextOutput() { decoded += piece.count }
        #expect(decoded > 3 << 20)
    }

    @Test("the default expansion guard stops it at about 1 MiB, from send and from stream, naming maxExpansionRatio")
    func ratioGuard() async throws {
        let server = try Self.server()
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/bomb"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidResponse)
        #expect(failure.message.contains("contentDecoding.maxExpansionRatio"), "\(failure.message)")

        let (read, streamError) = try await Self.streamed(transport, from: server)
        #expect(streamError?.kind == .invalidResponse)
        #expect(streamError?.message.contains("maxExpansionRatio") == true)
        #expect(read >= 1 << 20)
        #expect(read < 2 << 20)
    }

    @Test("with the ratio guard off, the buffered limit and maxStreamedBytes stop it, each named")
    func absoluteLimits() async throws {
        let server = try Self.server()
        var limits = HTTPLimits()
        limits.maxResponseBodyBytes = 8 << 20
        let unguarded = ContentDecoding(maxExpansionRatio: .max, maxStreamedBytes: 4 << 20)
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(20), limits: limits,
                contentDecoding: unguarded))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/bomb"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidResponse)
        #expect(
            failure.message.contains("8388608-byte limit (PinningTransport.Configuration.limits.maxResponseBodyBytes)"),
            "\(failure.message)")

        let (read, streamError) = try await Self.streamed(transport, from: server)
        #expect(streamError?.message.contains("contentDecoding.maxStreamedBytes") == true, "\(String(describing: streamError))")
        #expect(read == 4 << 20)
    }
}

/// Runs ``DecompressionBombMemoryTests`` in a process of its own, where the resident set is
/// the bomb's alone.
@Suite(
    "Decompression-bomb memory is measured in a process of its own",
    .disabled(if: MeasuringProcess.isMeasuring, "this is the measuring process"),
    .disabled(if: !ResidentMemory.isMeaningful, "memory bounds mean nothing under a sanitizer"))
struct DecompressionBombIsolationTests {
    @Test("the bomb memory tests pass in a process where nothing else runs")
    func isolated() async throws {
        let (status, output) = try await MeasuringProcess.run(filter: "DecompressionBombMemoryTests")
        let measured = output.split(separator: "\n").filter { $0.contains("resident growth") }
        for line in measured { print(line) }
        #expect(status == 0, "\(output)")
        #expect(measured.count == 2, "the child did not run both bomb memory tests: \(output)")
    }
}

/// The memory a bomb costs. Runs only in the process ``DecompressionBombIsolationTests`` starts.
@Suite(
    "Decoding a decompression bomb takes bounded memory", .serialized,
    .enabled(if: MeasuringProcess.isMeasuring, "runs in the process DecompressionBombIsolationTests starts"))
struct DecompressionBombMemoryTests {
    static let maxResidentGrowth = 32 << 20

    @Test("send, stopped by the guard, grows the resident set by less than 32 MiB")
    func sendStopped() async throws {
        let server = try DecompressionBombTests.server()
        let transport = try Pinning.transport()
        let baseline = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/bomb"))) }
        let growth = ResidentMemory.peak - baseline
        #expect((error as? TransportError)?.kind == .invalidResponse)
        #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB")
        print("bomb stopped by send: resident growth \(growth >> 10) KiB")
    }

    @Test("with every guard off, a 256 MiB bomb streams whole through consume with the resident set growing less than 32 MiB")
    func wholeBombStreams() async throws {
        // 256 MiB rather than the gigabyte: the same bound, a quarter of the CPU beside the other suites.
        let size = 256 << 20
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/bomb", response: .init(headers: [("Content-Encoding", "gzip")], body: ZlibEncoder.zerosBomb(bytes: size)))
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(120), httpVersion: .http1Only,
                contentDecoding: ContentDecoding(maxExpansionRatio: .max)))
        let baseline = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        let (read, error) = try await DecompressionBombTests.streamed(transport, from: server)
        let growth = ResidentMemory.peak - baseline
        #expect(error == nil)
        #expect(read == size)
        #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB")
        print("256 MiB bomb streamed whole: resident growth \(growth >> 10) KiB")
    }
}
