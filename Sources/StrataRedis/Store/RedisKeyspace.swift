import Strata

/// How store keys become Redis keys: `<namespace>:<hex SHA-256 of the store key>`.
///
/// Store keys hold a URL (its query may carry a token), so they never appear in Redis key
/// names, where `KEYS`, `SCAN`, `MONITOR` and the slow log show them; the digest is the same one
/// ``RedisETagStoreEvent`` and `FileETagStore` file names use. Every key has the same safe,
/// fixed-length shape, whatever the URL.
struct RedisKeyspace: Hashable, Sendable {
    /// The longest namespace accepted: keys stay short enough for every Redis tool to show.
    static let maxNamespaceBytes = 128

    /// The prefix, without the `:` that separates it from the digest.
    let namespace: String

    /// Checks `namespace`: 1 to 128 printable ASCII characters without spaces.
    ///
    /// - Throws: ``RedisETagStoreError/invalidNamespace(_:reason:)``.
    init(namespace: String) throws(RedisETagStoreError) {
        guard (1...Self.maxNamespaceBytes).contains(namespace.utf8.count),
            namespace.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw .invalidNamespace(
                String(namespace.prefix(Self.maxNamespaceBytes)),
                reason: "use 1 to \(Self.maxNamespaceBytes) printable ASCII characters without spaces, such as \"myservice:etag\"")
        }
        self.namespace = namespace
    }

    /// The digest events name an entry by.
    func keyDigest(of storeKey: String) -> String {
        ETagStoreEvent.keyDigest(of: storeKey)
    }

    /// The Redis key of the entry stored under `storeKey`.
    func redisKey(for storeKey: String) -> String {
        namespace + ":" + keyDigest(of: storeKey)
    }

    /// A `SCAN … MATCH` pattern for this namespace's entry keys and no other: the namespace
    /// with the glob characters `* ? [ ] \` escaped, `:`, then 64 lower-case hex digits, so a
    /// longer namespace that starts with this one (`strata:etag:v2`) is left alone.
    var scanPattern: String {
        var pattern = ""
        for character in namespace {
            if "*?[]\\".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + ":" + String(repeating: "[0-9a-f]", count: 64)
    }
}
