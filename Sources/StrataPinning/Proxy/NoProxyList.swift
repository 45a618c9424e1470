import StrataConnect

/// The hosts a proxy is not used for, parsed from a `NO_PROXY` value with curl's rules
/// (curl 7.86 and later). Pure policy: no I/O, and never a DNS lookup: a request's host is
/// compared as written in its URL (in ``CanonicalHost`` form).
///
/// - Entries are separated by commas or white space; case and one trailing dot are ignored.
/// - `*` alone matches every host.
/// - A name matches itself and every host below it: `example.com` matches `example.com` and
///   `api.example.com`, never `notexample.com`. A leading `.` (or `*.`) changes nothing:
///   `.example.com` matches the same hosts.
/// - `host:port` (`[::1]:8443` for IPv6) matches that host (as above) on that port only.
/// - An IP literal matches that address in any spelling (`127.1` is `127.0.0.1`); a CIDR block
///   (`10.0.0.0/8`, `fd00::/8`) matches every address in it. Addresses never match names.
/// - An entry that is none of these (a Windows `<local>`, a URL) matches nothing, as in curl.
struct NoProxyList: Sendable, Hashable {
    /// One parsed entry.
    enum Entry: Sendable, Hashable {
        /// Every host.
        case everything
        /// A DNS name and every name below it; `port` nil for any port.
        case domain(String, port: Int?)
        /// An IP address (4 or 16 bytes) and the number of leading bits that must match.
        case network([UInt8], prefixLength: Int, port: Int?)
    }

    /// The entries that could be read, in order.
    let entries: [Entry]

    /// Parses `value` (the text of `NO_PROXY`); unreadable entries are dropped.
    init(_ value: String) {
        entries = value.split(whereSeparator: { $0 == "," || $0.isWhitespace }).compactMap { Self.entry(String($0)) }
    }

    /// Whether a request to `host:port` goes around the proxy.
    func bypasses(_ host: CanonicalHost, port: Int) -> Bool {
        let address = host.isIPAddress ? IPAddressBytes.of(host.name) : nil
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case let .domain(name, entryPort):
                guard !host.isIPAddress, entryPort == nil || entryPort == port else { return false }
                return host.name == name || host.name.hasSuffix("." + name)
            case let .network(network, prefixLength, entryPort):
                guard let address, entryPort == nil || entryPort == port else { return false }
                return IPAddressBytes.prefix(of: address, equals: network, bits: prefixLength)
            }
        }
    }

    // MARK: - Parsing

    private static func entry(_ raw: String) -> Entry? {
        if raw == "*" { return .everything }
        var text = Substring(raw)
        var port: Int?
        if text.hasPrefix("[") {
            // [IPv6] or [IPv6]:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Self.port(rest.dropFirst()) else { return nil }
                port = number
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // name:port or IPv4:port (a bare IPv6 literal has several colons)
            guard let number = Self.port(text[text.index(after: colon)...]) else { return nil }
            port = number
            text = text[..<colon]
        }
        if let slash = text.firstIndex(of: "/") {
            guard let bits = Int(text[text.index(after: slash)...]),
                let address = Self.canonicalAddress(String(text[..<slash])),
                (0...address.count * 8).contains(bits)
            else { return nil }
            return .network(address, prefixLength: bits, port: port)
        }
        if text.hasPrefix("*.") { text = text.dropFirst(2) } else if text.hasPrefix(".") { text = text.dropFirst() }
        guard let host = try? CanonicalHost(String(text)) else { return nil }
        if host.isIPAddress, let address = IPAddressBytes.of(host.name) {
            return .network(address, prefixLength: address.count * 8, port: port)
        }
        return .domain(host.name, port: port)
    }

    private static func port(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), let number = Int(text), (1...65535).contains(number) else {
            return nil
        }
        return number
    }

    /// The bytes of an address in any spelling ``CanonicalHost`` accepts (so an IPv4-mapped
    /// IPv6 block is the IPv4 one), or nil for a name.
    private static func canonicalAddress(_ text: String) -> [UInt8]? {
        guard let host = try? CanonicalHost(text), host.isIPAddress else { return nil }
        return IPAddressBytes.of(host.name)
    }
}
