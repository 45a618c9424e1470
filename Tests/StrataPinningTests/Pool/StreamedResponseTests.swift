#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing

/// What an HTTP/1.1 body streamed from a connection holds while its reader is behind.
@Suite("StreamedResponse hands an HTTP/1.1 body to a reader that is behind")
struct StreamedResponseTests {
    private let farDeadline = ContinuousClock.now + .seconds(3600)

    @Test("one-byte chunks that arrive a read at a time cost a reader that is behind their bytes, not an array each")
    func oneByteChunksAreCoalesced() async throws {
        let count = 5_000
        // A pause after every chunk: nothing more has arrived, so each read is a piece of its own.
        var script: [ScriptedByteStream.Step] = [.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
        for index in 0..<count { script += [.text("1\r\n\(index % 10)\r\n"), .pause] }
        script.append(.text("0\r\n\r\n"))
        var connection = HTTP1Connection(stream: ScriptedByteStream(script))
        let request = try HTTP1RequestEncoder.encode(HTTPRequest(url: URL(string: "http://example.test/")!))
        _ = try connection.sendStreaming(request, deadline: farDeadline)

        // A watermark above the body: the producer never pauses, and the reader reads nothing yet.
        let response = StreamedResponse(channel: BodyChannel(highWatermark: 1 << 20))
        response.pump(&connection, deadline: farDeadline)

        #expect(connection.isReusable)
        #expect(response.channel.heldChunkSlots == 1, "\(count) one-byte pieces are held as one chunk")
        #expect(response.channel.unreadStorageBytes <= count + BodyChannel.coalescedChunkBytes)
        let body = try await response.channel.body(length: nil).collect(upTo: 1 << 20)
        #expect(body == Data((0..<count).map { UInt8(ascii: "0") + UInt8($0 % 10) }))
    }
}
