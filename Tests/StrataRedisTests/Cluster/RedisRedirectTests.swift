@testable import StrataRedis
import Testing

@Suite("MOVED and ASK replies")
struct RedisRedirectTests {
    private let replying = RedisNodeAddress(host: "10.0.0.1", port: 7000)!

    @Test("MOVED and ASK name a slot and a node; an empty host is the replying node's")
    func parse() {
        let moved = RedisRedirect(.error("MOVED 3999 127.0.0.1:6381"), from: replying)
        #expect(moved == RedisRedirect(kind: .moved, slot: 3_999, node: RedisNodeAddress(host: "127.0.0.1", port: 6_381)!))
        let ask = RedisRedirect(.error("ASK 3999 :6380"), from: replying)
        #expect(ask?.kind == .ask && ask?.node == RedisNodeAddress(host: "10.0.0.1", port: 6_380))
        #expect(RedisRedirect(.error("MOVED 1 ::1:7001"), from: replying)?.node == RedisNodeAddress(host: "::1", port: 7_001))
    }

    @Test("other errors and malformed redirects are not redirects")
    func notRedirects() {
        for text in [
            "ERR unknown command", "MOVED", "MOVED 16384 127.0.0.1:1", "MOVED -1 h:1", "ASK 1 host",
            "ASK 1 host:0", "ASK 1 host:99999", "MOVED 1 h:1 extra", "TRYAGAIN 1 h:1",
        ] {
            #expect(RedisRedirect(.error(text), from: replying) == nil, "\(text)")
        }
        #expect(RedisRedirect(.simpleString("MOVED 1 h:1"), from: replying) == nil)
    }
}

extension RedisRedirect {
    init(kind: Kind, slot: Int, node: RedisNodeAddress) {
        let word = kind == .moved ? "MOVED" : "ASK"
        self.init(.error("\(word) \(slot) \(node)"), from: node)!
    }
}
