/// The last identity digest an ``ETagTransport`` computed, with the identity fields it was
/// computed from: one user's requests carry the same credential request after request, and
/// SHA-256 over a long token (a JWT is about a kilobyte) costs microseconds each time.
///
/// It holds one identity's fields, in memory only (as the auth service that issued the credential
/// does); the next request with another identity replaces them.
///
/// With it, the primary keys made recently, with the URL and digest each was made of: a client
/// polling a few resources, or many tasks each asking for a resource of its own, asks for the
/// same keys request after request. Up to ``recentKeyCount`` are kept. A key holds its identity's
/// digest (not a credential, but a digest of a weak one can be guessed, as SECURITY.md says of
/// stored keys), so digests of up to that many earlier identities stay in memory, with the
/// URLs, whatever the store: nothing here is written anywhere.
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

    /// Keys in buckets of two, chosen by the URL: two URLs sharing a bucket are both kept, and a
    /// third replaces the one of the two used less recently.
    private struct RecentKeys {
        /// Entry `2 * bucket + way`.
        var entries = [RecentKey?](repeating: nil, count: 2 * IdentityDigestMemo.bucketCount)
        /// Per bucket, the way found or written last.
        var newestWay = [UInt8](repeating: 0, count: IdentityDigestMemo.bucketCount)
        /// The entry found or written last: the same URL as the last request's is found without
        /// hashing it.
        var lastEntry = 0

        mutating func find(url: String, digest: String, at index: Int) -> StoreKey? {
            guard let entry = entries[index], entry.url == url, entry.digest == digest else { return nil }
            lastEntry = index
            newestWay[index / 2] = UInt8(index % 2)
            return entry.key
        }

        mutating func insert(_ key: RecentKey, inBucket bucket: Int) {
            let index = 2 * bucket + 1 - Int(newestWay[bucket])
            entries[index] = key
            lastEntry = index
            newestWay[bucket] = UInt8(index % 2)
        }
    }

    static let bucketCount = 64
    /// How many primary keys are remembered: 16 tasks each asking for a resource of its own
    /// find their keys unless three of their URLs share a bucket (about one set of 16 URLs in seven).
    static var recentKeyCount: Int { 2 * bucketCount }

    private let recentKeys = LockedValue(RecentKeys())

    /// The remembered primary key, when it was made for `url` (its absolute string) and `digest`.
    func key(forURL url: String, digest: String) -> StoreKey? {
        if let key = recentKeys.withLock({ $0.find(url: url, digest: digest, at: $0.lastEntry) }) { return key }
        // Hashed outside the lock, which concurrent requests share.
        let bucket = Self.bucket(of: url)
        return recentKeys.withLock { recent in
            recent.find(url: url, digest: digest, at: 2 * bucket)
                ?? recent.find(url: url, digest: digest, at: 2 * bucket + 1)
        }
    }

    /// Remembers `key` as the primary key of `url` for `digest`, in place of the key of its
    /// bucket used less recently.
    func remember(key: StoreKey, forURL url: String, digest: String) {
        let bucket = Self.bucket(of: url)
        recentKeys.withLock { $0.insert(RecentKey(url: url, digest: digest, key: key), inBucket: bucket) }
    }

    /// The bucket of `url`: FNV-1a over its bytes, mixed by MurmurHash3's finalizer (FNV's low
    /// bits alone put URLs that differ in one character 64 apart in the same bucket). Far
    /// cheaper than the `Hasher`, and a collision only costs a miss.
    static func bucket(of url: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in url.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        hash ^= hash >> 16
        hash &*= 0x85EB_CA6B
        hash ^= hash >> 13
        hash &*= 0xC2B2_AE35
        hash ^= hash >> 16
        return Int(hash % UInt32(bucketCount))
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
