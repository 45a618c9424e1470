import Foundation
@testable import Strata
import Testing

@Suite("BodyChannel: a bounded hand-over from a producer to the body's reader")
struct BodyChannelTests {
    static func bytes(_ count: Int, _ value: UInt8 = 1) -> ArraySlice<UInt8> { Array(repeating: value, count: count)[...] }

    @Test("chunks arrive in order, then the end")
    func inOrder() async throws {
        let channel = BodyChannel()
        channel.yield(Self.bytes(2, 1))
        channel.yield(Self.bytes(3, 2))
        channel.finish()
        #expect(try await channel.body(length: 5).collect(upTo: 100) == Data([1, 1, 2, 2, 2]))
    }

    @Test("a reader waiting for bytes gets the next chunk as soon as it is yielded")
    func waitingReader() async throws {
        let channel = BodyChannel()
        let reader = Task { try await channel.body(length: nil).collect(upTo: 100) }
        // Whether the reader parked first or not, it gets every chunk.
        for _ in 0..<1_000 { await Task.yield() }
        channel.yield(Self.bytes(4))
        channel.finish()
        #expect(try await reader.value == Data(repeating: 1, count: 4))
    }

    @Test("the producer is told to pause above the high watermark and to go on below the low one")
    func backpressure() async throws {
        // Chunks of a full frame each, which are never coalesced, so each read takes one of them.
        let frame = BodyChannel.coalescedChunkBytes
        let channel = BodyChannel(highWatermark: 10 * frame / 4, lowWatermark: frame)
        let resumed = LockedValue(0)
        channel.onDemand { resumed.withLock { $0 += 1 } }
        #expect(channel.yield(Self.bytes(3 * frame / 2)))
        #expect(!channel.yield(Self.bytes(3 * frame / 2)), "3 frames unread, above 2.5: pause")
        var iterator = channel.body(length: nil).makeAsyncIterator()
        _ = try await iterator.next()
        #expect(resumed.withLock { $0 } == 0, "1.5 frames unread is still above the low watermark")
        _ = try await iterator.next()
        #expect(resumed.withLock { $0 } == 1, "nothing unread: go on")
    }

    @Test("256 Ki one-byte chunks yielded while the reader is behind are held as 16 KiB chunks, in order, none lost")
    func smallChunksAreCoalesced() async throws {
        let channel = BodyChannel(highWatermark: 1 << 30)
        let count = 1 << 18
        for index in 0..<count { channel.yield([UInt8(truncatingIfNeeded: index)][...]) }
        channel.finish()
        // One slot of 16 KiB for 16 Ki chunks: the heap holds the payload, not 80 bytes a byte.
        #expect(channel.heldChunkSlots == count / BodyChannel.coalescedChunkBytes)
        var expected = 0
        var sizes: Set<Int> = []
        for try await chunk in channel.body(length: Int64(count)) {
            sizes.insert(chunk.count)
            for byte in chunk {
                guard byte == UInt8(truncatingIfNeeded: expected) else {
                    Issue.record("byte \(expected) is \(byte)")
                    return
                }
                expected += 1
            }
        }
        #expect(expected == count)
        #expect(sizes == [BodyChannel.coalescedChunkBytes])
    }

    @Test(
        "whatever the mix of chunk sizes a server sends, unread storage stays within 2.5 times the payload plus 16 KiB",
        arguments: [
            ("4 KiB frames each followed by 100 bytes", [4_096, 100], 200),
            ("4,097 one-byte frames then a 4 KiB frame", Array(repeating: 1, count: 4_097) + [4_096], 20),
            ("16 KiB frames each followed by 1 byte", [16_384, 1], 100),
            ("one-byte frames only", [1], 100_000),
        ])
    func storageIsBoundedForEveryMix(name: String, pattern: [Int], repeats: Int) {
        let channel = BodyChannel(highWatermark: 1 << 30)
        var payload = 0
        for _ in 0..<repeats {
            for size in pattern {
                channel.yield(Self.bytes(size))
                payload += size
            }
        }
        // A few dozen bytes of array header for each chunk kept besides.
        let bound = payload * 5 / 2 + BodyChannel.coalescedChunkBytes + 64 * channel.heldChunkSlots
        #expect(channel.unreadStorageBytes <= bound, "\(name): \(channel.unreadStorageBytes) bytes of storage for \(payload)")
        if pattern == [1] {
            #expect(
                channel.unreadStorageBytes <= payload + payload / 8 + BodyChannel.coalescedChunkBytes,
                "a flood of tiny chunks costs about its payload")
        }
    }

    @Test(
        "a small chunk is copied while it waits, so it does not keep the producer's larger buffer alive; a large chunk is kept as it came")
    func smallChunksDoNotPinTheProducersBuffer() async throws {
        let channel = BodyChannel(highWatermark: 1 << 30)
        let producerBuffer = [UInt8](repeating: 7, count: 1 << 20)
        let frame = BodyChannel.coalescedChunkBytes
        channel.yield(producerBuffer[0..<10])
        channel.yield(producerBuffer[frame..<(3 * frame)])
        var iterator = channel.body(length: nil).makeAsyncIterator()
        let small = try #require(try await iterator.next())
        let full = try #require(try await iterator.next())
        let producerStart = producerBuffer.withUnsafeBufferPointer { $0.baseAddress! }
        #expect(small.count == 10)
        #expect(small.withUnsafeBufferPointer { $0.baseAddress! } != producerStart)
        #expect(full.count == 2 * frame)
        #expect(full.withUnsafeBufferPointer { $0.baseAddress! } == producerStart + frame)
    }

    @Test("chunks already read are not held while the producer stays ahead of the reader")
    func readChunksAreDropped() async throws {
        let channel = BodyChannel(highWatermark: 1 << 30)
        var iterator = channel.body(length: nil).makeAsyncIterator()
        channel.yield(Self.bytes(1))
        for _ in 0..<10_000 {
            // Always one chunk ahead: the list never empties on its own.
            channel.yield(Self.bytes(1))
            _ = try await iterator.next()
        }
        #expect(channel.heldChunkSlots <= 2 * BodyChannel.compactionThreshold)
    }

    @Test("a failure reaches the reader after the chunks before it")
    func failure() async throws {
        let channel = BodyChannel()
        channel.yield(Self.bytes(1))
        channel.finish(throwing: TransportError(.connectionLost))
        var iterator = channel.body(length: nil).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 1)
        await #expect(throws: TransportError.self) { _ = try await iterator.next() }
    }

    @Test("after release the producer is told to stop, buffered bytes are dropped and a read fails")
    func release() async throws {
        let channel = BodyChannel()
        let demanded = LockedValue(false)
        channel.onDemand { demanded.withLock { $0 = true } }
        channel.yield(Self.bytes(100))
        channel.release()
        #expect(channel.isReleased)
        #expect(demanded.withLock { $0 }, "a paused producer learns the reader is gone")
        #expect(!channel.yield(Self.bytes(1)))
        await #expect(throws: HTTPBodyError.readAfterRelease) { try await channel.body(length: nil).collect(upTo: 1000) }
    }

    @Test("a reader parked when the body is released fails at once instead of waiting forever")
    func releaseWhileWaiting() async throws {
        let channel = BodyChannel()
        let reader = Task { try await channel.body(length: nil).collect(upTo: 100) }
        for _ in 0..<1_000 { await Task.yield() }
        channel.release()
        await #expect(throws: HTTPBodyError.readAfterRelease) { try await reader.value }
    }

    @Test("a cancelled reader stops waiting with CancellationError")
    func cancelledReader() async throws {
        let channel = BodyChannel()
        let reader = Task { try await channel.body(length: nil).collect(upTo: 100) }
        for _ in 0..<1_000 { await Task.yield() }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }
}
