import Foundation
import Strata
@testable import StrataRedis
import TestServer

/// A scripted Redis Cluster node on a loopback port: it reads RESP commands, records each one,
/// and answers with whatever `answer` returns for it, so a test can play a node that lies (a
/// `MOVED` to anywhere) and, with a second one, a node that must never be reached.
///
/// `answer` sees the command's words (`["CLUSTER", "SHARDS"]`, `["GET", key]`); it runs on the
/// connection's own thread, never on the cooperative pool.
final class FakeClusterNode: Sendable {
    private let server: LoopbackHTTPServer
    private let recorded = LockedValue<[[String]]>([])

    /// Starts a node on 127.0.0.1 with an OS-chosen port.
    init(answer: @escaping @Sendable (_ command: [String]) -> RESPValue) throws {
        let recorded = recorded
        server = try LoopbackHTTPServer(
            channel: { PlainSocketChannel(fd: $0) },
            session: { channel in Self.serve(channel, recorded: recorded, answer: answer) })
    }

    /// The node's port.
    var port: Int { server.port }
    /// `127.0.0.1:<port>`, as a redirect or a topology names it.
    var address: String { "127.0.0.1:\(port)" }
    /// Every command received, in order, across connections.
    var commands: [[String]] { recorded.withLock { $0 } }
    /// How many connections were opened to it.
    var connectionCount: Int { server.connectionCount }
    /// How many `CLUSTER SHARDS` it answered: how often the client read the topology here.
    var topologyReads: Int { commands.filter { $0.prefix(2) == ["CLUSTER", "SHARDS"] }.count }

    /// A `CLUSTER SHARDS` reply (RESP2) listing `shards`: each a primary, online, and its slot ranges.
    static func shards(_ shards: [(primary: (host: String, port: Int), slots: [ClosedRange<Int>])]) -> RESPValue {
        func text(_ value: String) -> RESPValue { .bulkString(Array(value.utf8)) }
        return .array(
            shards.enumerated().map { index, shard in
                .array([
                    text("slots"), .array(shard.slots.flatMap { [.integer(Int64($0.lowerBound)), .integer(Int64($0.upperBound))] }),
                    text("nodes"),
                    .array([
                        .array([
                            text("id"), text(String(repeating: String(index), count: 40)),
                            text("port"), .integer(Int64(shard.primary.port)),
                            text("ip"), text(shard.primary.host), text("endpoint"), text(shard.primary.host),
                            text("role"), text("master"), text("health"), text("online"),
                        ])
                    ]),
                ])
            })
    }

    private static func serve(
        _ channel: any LoopbackByteChannel, recorded: LockedValue<[[String]]>,
        answer: @Sendable ([String]) -> RESPValue
    ) {
        var parser = RESPParser()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let received = buffer.withUnsafeMutableBytes { channel.receive(into: $0) }
            guard received > 0 else { return }
            parser.append(buffer[0..<received])
            var replies: [UInt8] = []
            while let command = try? parser.next() {
                guard case .array(let items?) = command else { return }
                let words = items.map { item in
                    if case .bulkString(let bytes?) = item { String(decoding: bytes, as: UTF8.self) } else { "" }
                }
                recorded.withLock { $0.append(words) }
                encode(answer(words), into: &replies)
            }
            guard replies.withUnsafeBytes({ channel.send($0) }) else { return }
        }
    }

    /// RESP2 bytes of `value`.
    private static func encode(_ value: RESPValue, into bytes: inout [UInt8]) {
        switch value {
        case .simpleString(let text): bytes += Array("+\(text)\r\n".utf8)
        case .error(let text): bytes += Array("-\(text)\r\n".utf8)
        case .integer(let number): bytes += Array(":\(number)\r\n".utf8)
        case .bulkString(nil): bytes += Array("$-1\r\n".utf8)
        case .bulkString(let value?): bytes += Array("$\(value.count)\r\n".utf8) + value + Array("\r\n".utf8)
        case .array(nil): bytes += Array("*-1\r\n".utf8)
        case .array(let items?):
            bytes += Array("*\(items.count)\r\n".utf8)
            for item in items { encode(item, into: &bytes) }
        }
    }
}
