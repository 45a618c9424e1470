/// The last identity digest an ``ETagTransport`` computed, with the identity fields it was
/// computed from: one user's requests carry the same credential request after request, and
/// SHA-256 over a long token (a JWT is about a kilobyte) costs microseconds each time.
///
/// It holds one identity's fields, in memory only (as the auth service that issued the credential
/// does); the next request with another identity replaces them, so no credential lingers beyond
/// the last user's.
///
/// With it, the primary keys made last, with the URL and digest each was made of: a client
/// polling a few resources asks for the same keys request after request. Up to
/// ``recentKeyCount`` are kept, one per slot chosen by the URL; a key holds the identity's
/// digest, never its fields. URLs and keys stay in memory, as an ``InMemoryETagStore`` keeps them.
final class IdentityDigestMemo: Sendable {
    private struct Last {
        var fields: [String]
        var digest: String
    }

    private let last = LockedValue<Last?>(nil)

    private struct RecentKey {
        var url: String
        var digest: String
        /// Kept with its hash, which is then not computed again either.
        var key: StoreKey
    }

    private struct RecentKeys {
        var slots = [RecentKey?](repeating: nil, count: IdentityDigestMemo.recentKeyCount)
        /// The slot used last: the same URL as the last request's is found without hashing it.
        var lastSlot = 0
    }

    /// How many primary keys are remembered: a few dozen small strings, so that a handful of
    /// resources polled in turn, or 16 concurrent tasks each asking for a resource of its own,
    /// find their keys (16 URLs in 64 slots share one rarely).
    static let recentKeyCount = 64

    private let recentKeys = LockedValue(RecentKeys())

    /// The remembered primary key, when it was made for `url` (its absolute string) and `digest`.
    func key(forURL url: String, digest: String) -> StoreKey? {
        recentKeys.withLock { recent in
            func match(_ slot: Int) -> StoreKey? {
                guard let entry = recent.slots[slot], entry.url == url, entry.digest == digest else { return nil }
                recent.lastSlot = slot
                return entry.key
            }
            if let key = match(recent.lastSlot) { return key }
            return match(Self.slot(of: url))
        }
    }

    /// Remembers `key` as the primary key of `url` for `digest`, in place of the key in its slot.
    func remember(key: StoreKey, forURL url: String, digest: String) {
        let slot = Self.slot(of: url)
        recentKeys.withLock { recent in
            recent.slots[slot] = RecentKey(url: url, digest: digest, key: key)
            recent.lastSlot = slot
        }
    }

    /// The slot of `url`: FNV-1a over its bytes, far cheaper than the `Hasher` (which also
    /// draws a per-process seed the slot does not need); two URLs sharing a slot only replace
    /// each other's key.
    private static func slot(of url: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in url.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % UInt32(recentKeyCount))
    }

    /// The digest of `fields`: the remembered one when `fields` are the last ones, else `compute()`.
    func digest(of fields: [String], compute: () -> String) -> String {
        if let remembered = last.withLock({ $0?.fields == fields ? $0?.digest : nil }) { return remembered }
        let digest = compute()
        last.withLock { $0 = Last(fields: fields, digest: digest) }
        return digest
    }

    /// The remembered digest, when `matches` says its fields (never empty) are the ones wanted:
    /// the caller compares them in place, without building an array of its own.
    func remembered(where matches: ([String]) -> Bool) -> String? {
        last.withLock { last in
            guard let last, matches(last.fields) else { return nil }
            return last.digest
        }
    }

    /// Remembers `digest` as that of `fields`, in place of the last one.
    func remember(_ fields: [String], digest: String) {
        last.withLock { $0 = Last(fields: fields, digest: digest) }
    }
}
