/// Where one Redis server listens: a host (name or IP address, IPv6 without brackets) and a TCP
/// port. A cluster names its nodes this way in topology replies and redirects.
struct RedisNodeAddress: Hashable, Sendable, CustomStringConvertible {
    /// The longest host accepted from a server: a DNS name is at most 253 bytes.
    static let maxHostBytes = 255

    /// The host name or IP address.
    let host: String
    /// The TCP port, 1 to 65535.
    let port: Int

    /// Creates an address; `nil` for an empty or overlong host, a host holding a NUL, or a
    /// port outside 1...65535.
    init?(host: String, port: Int) {
        guard !host.isEmpty, host.utf8.count <= Self.maxHostBytes, !host.utf8.contains(0),
            (1...65_535).contains(port)
        else { return nil }
        self.host = host
        self.port = port
    }

    /// The address of an endpoint parsed from a URL (whose checks are the same or stricter).
    init(endpoint: RedisEndpoint) {
        host = endpoint.host
        port = endpoint.port
    }

    /// Parses `host:port` as Redis writes it in `MOVED` and `ASK` (IPv6 hosts unbracketed, so
    /// the port follows the last `:`). An empty host means "the node you are talking to"
    /// (Redis 7 sends it when a node's endpoint is unknown), so `sameHostAs` supplies it.
    init?(_ text: Substring, sameHostAs replying: RedisNodeAddress) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host.isEmpty ? replying.host : host, port: port)
    }

    /// `host:port`, with an IPv6 host in brackets.
    var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
