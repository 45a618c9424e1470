import Foundation
import TestServer

/// Large test bodies, built quickly even in debug builds (a per-byte closure over 10 MB takes
/// seconds there): a 64 KiB block that varies with `seed`, repeated, each copy shifted by its
/// index so that a misplaced block is detected.
enum Payload {
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        let block = BodyPattern.bytes(from: Int(seed) << 16, count: 65_536)
        var data = Data(capacity: count)
        var index: UInt8 = 0
        while data.count < count {
            var copy = block
            copy[0] = index
            data.append(contentsOf: copy.prefix(count - data.count))
            index &+= 1
        }
        return data
    }
}
