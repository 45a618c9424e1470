/// The ``PinningTransport/Configuration/clientIdentities`` table: host patterns (the
/// `pinnedDomains` syntax), each with the identity presented to its servers.
///
/// When several patterns match a host, the most specific one wins: an exact name first, then
/// the longer base domain, then `*.` over `**.` on the same domain. So for
/// `payments.example.com`, `**.payments.example.com` (which covers its own apex) wins over
/// `*.example.com`. Every pattern must also be a `pinnedDomains` key:
/// only pinned hosts travel over this transport's own TLS connections.
struct ClientIdentities: Sendable {
    private struct Entry: Sendable {
        let pattern: HostPattern
        let identity: ClientIdentity
    }

    private let entries: [Entry]

    /// Every pattern with its certificate's SPKI pin, one `pattern pin` line each in pattern
    /// order, or nil when there are none: which certificate goes to which hosts, and nothing
    /// secret. Made once, as it is reported for every cached request.
    let table: String?

    /// No identities: no host is offered a client certificate.
    static let none = ClientIdentities(entries: [])

    private init(entries: [Entry]) {
        self.entries = entries
        table =
            entries.isEmpty
            ? nil
            : entries.map { "\($0.pattern.description) \($0.identity.certificate.spkiPin)" }.joined(separator: "\n")
    }

    /// Parses every key of `identities` as a ``HostPattern`` that `pinned` also has.
    ///
    /// - Throws: ``PinningConfigurationError/malformedHostPattern(_:reason:)`` or
    ///   ``PinningConfigurationError/clientIdentityWithoutPins(hostPattern:)`` for the first bad
    ///   key in sorted order.
    init(_ identities: [String: ClientIdentity], pinned: PinnedDomains) throws(PinningConfigurationError) {
        let pinnedPatterns = Set(pinned.patterns)
        var entries: [Entry] = []
        for (key, identity) in identities.sorted(by: { $0.key < $1.key }) {
            let pattern = try HostPattern(key)
            guard pinnedPatterns.contains(pattern) else { throw .clientIdentityWithoutPins(hostPattern: pattern.description) }
            entries.append(Entry(pattern: pattern, identity: identity))
        }
        self.init(entries: entries)
    }

    /// The identity to present to `host` (a ``CanonicalHost`` name), nil for none.
    func identity(for host: String) -> ClientIdentity? {
        guard !entries.isEmpty, let canonical = try? CanonicalHost(host) else { return nil }
        return entries.filter { $0.pattern.matches(canonical) }
            .max { Self.specificity($0.pattern) < Self.specificity($1.pattern) }?.identity
    }

    /// Orders matching patterns from least to most specific. Length before kind: a wildcard on a
    /// longer base domain names a narrower set of hosts than one on a shorter base.
    private static func specificity(_ pattern: HostPattern) -> (exact: Int, length: Int, kind: Int) {
        let kind =
            switch pattern.kind {
            case .anyDepth: 0
            case .oneLabel: 1
            case .exact: 2
            }
        return (pattern.kind == .exact ? 1 : 0, pattern.base.utf8.count, kind)
    }
}
