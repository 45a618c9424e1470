import Foundation
import CZlib

/// The pattern large test bodies follow, so a sender and a receiver can each produce or check
/// any part of a body without keeping it, and a misplaced or dropped byte changes the checksum.
///
/// Built for debug builds, where tests run: a per-byte closure over `map` costs tens of
/// nanoseconds a byte there, and megabyte bodies made that way kept the cooperative pool busy
/// for seconds. These loops write into a buffer, and the checksum is zlib's CRC-32.
public enum BodyPattern {
    /// The byte at `offset` of a pattern body.
    public static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ offset >> 12) }

    /// `count` pattern bytes starting at `offset`.
    public static func bytes(from offset: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = byte(at: offset &+ index) }
            initialized = count
        }
    }
}

/// A running byte count and CRC-32 of a body read in pieces.
public struct BodyChecksum: Sendable, Equatable, CustomStringConvertible {
    public private(set) var count = 0
    public private(set) var crc: UInt = 0

    public init() {}

    /// The checksum of `pieces`, one after the other.
    public init(_ pieces: some Sequence<[UInt8]>) {
        for piece in pieces { add(piece) }
    }

    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        crc = crc32_z(crc, base.assumingMemoryBound(to: Bytef.self), bytes.count)
        count += bytes.count
    }

    public mutating func add(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { add($0) }
    }

    /// "<count> <crc>", the form servers answer with.
    public var description: String { "\(count) \(crc)" }
}
