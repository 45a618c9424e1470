import StrataConnect

/// The hosts a cluster client may connect to, from `RedisETagStore(cluster:…, allowedHosts:)`:
/// a limit on top of the trust rule (seeds, and the nodes a seed's topology names), so a seed
/// that is misconfigured or compromised cannot send the client, and its `AUTH`, elsewhere.
///
/// Pure policy: hosts are compared as the seeds and the cluster spell them, never resolved.
///
/// - `cache.internal` matches that name only; case and one trailing dot are ignored.
/// - `*.cache.internal` matches every name below `cache.internal`, at any depth, not
///   `cache.internal` itself.
/// - `10.0.0.7` or `fd00::7` matches that address; `10.0.0.0/8` or `fd00::/8` every address in
///   the network.
/// - Names never match addresses, nor addresses names: a cluster that announces IP addresses
///   (Redis's default, `cluster-preferred-endpoint-type ip`) needs addresses or networks here.
struct RedisNodeAllowList: Sendable, Hashable {
    /// One entry.
    enum Entry: Sendable, Hashable {
        /// A name, matched exactly.
        case name(String)
        /// Every name below a domain.
        case below(String)
        /// An IP address (4 or 16 bytes) and how many leading bits must match.
        case network([UInt8], prefixLength: Int)
    }

    /// The longest host name (RFC 1035 §2.3.4).
    static let maxNameBytes = 253

    /// The entries, in the order given.
    let entries: [Entry]

    /// Parses `hosts`.
    ///
    /// - Throws: ``RedisETagStoreError/invalidParameter(_:reason:)`` naming the first entry that
    ///   is not a name, a `*.` wildcard, an IP address or a network, or an empty list.
    init(_ hosts: [String]) throws(RedisETagStoreError) {
        guard !hosts.isEmpty else {
            throw .invalidParameter(
                "allowedHosts", reason: "an empty list would allow no node; pass nil to allow the nodes the seeds name")
        }
        var entries: [Entry] = []
        for host in hosts {
            guard let entry = Self.entry(host) else {
                throw .invalidParameter(
                    "allowedHosts",
                    reason: "\"\(host.prefix(Self.maxNameBytes))\" is not a host name (cache.internal), a wildcard "
                        + "(*.cache.internal), an IP address (10.0.0.7) or a network (10.0.0.0/8, fd00::/8); ports are not part of it")
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// Whether `host` (a name or an IP address, IPv6 without brackets) is allowed.
    func allows(_ host: String) -> Bool {
        let host = Self.normalized(host)
        if let address = IPAddressBytes.of(host) {
            return entries.contains { entry in
                guard case .network(let network, let prefixLength) = entry else { return false }
                return IPAddressBytes.prefix(of: address, equals: network, bits: prefixLength)
            }
        }
        return entries.contains { entry in
            switch entry {
            case .name(let name): host == name
            case .below(let domain): host.hasSuffix("." + domain)
            case .network: false
            }
        }
    }

    private static func entry(_ raw: String) -> Entry? {
        var text = normalized(raw)
        if let slash = text.firstIndex(of: "/") {
            guard let bits = Int(text[text.index(after: slash)...]), let address = IPAddressBytes.of(String(text[..<slash])),
                (0...address.count * 8).contains(bits)
            else { return nil }
            return .network(address, prefixLength: bits)
        }
        if let address = IPAddressBytes.of(text) { return .network(address, prefixLength: address.count * 8) }
        let wildcard = text.hasPrefix("*.")
        if wildcard { text.removeFirst(2) }
        guard isName(text) else { return nil }
        return wildcard ? .below(text) : .name(text)
    }

    /// Lower case, one trailing dot and URL brackets around an IPv6 address removed.
    private static func normalized(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Whether `text` is a DNS name: labels of letters, digits, `-` and `_`, none empty.
    private static func isName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maxNameBytes else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                }
        }
    }
}
