/// The `<host>[:port]` argument of `strata-demo pin`: a host name, an IPv4 literal or a
/// bracketed IPv6 literal (`[::1]:8443`), with an optional port that defaults to 443.
struct PinTarget: Equatable, Sendable, CustomStringConvertible {
    /// The port HTTPS uses when none is given.
    static let defaultPort = 443

    /// The host, without brackets.
    let host: String
    /// The TCP port, 1...65535.
    let port: Int

    init(host: String, port: Int = PinTarget.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Parses `host`, `host:port`, `[v6]` or `[v6]:port`.
    ///
    /// - Throws: `spec`'s ``UsageError`` for an empty host, a URL instead of a host, or a port
    ///   outside 1...65535.
    init(parsing text: String, spec: CommandSpec) throws(UsageError) {
        guard !text.contains("/") else {
            throw spec.usageError("Expected <host>[:port], not a URL: '\(text)'.")
        }
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw spec.usageError("Missing ']' in '\(text)'.") }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw spec.usageError("Unexpected characters after ']' in '\(text)'.") }
                portText = after.dropFirst()
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else {
                throw spec.usageError("Write an IPv6 address in brackets, such as '[::1]:443': '\(text)'.")
            }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw spec.usageError("Missing host in '\(text)'.") }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw spec.usageError("The port must be a number from 1 to 65535, not '\(portText)'.")
            }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 literal.
    var description: String { authority }

    /// The URL authority: `host:port`, with brackets around an IPv6 literal.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
