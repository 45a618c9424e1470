/// The last identity digest an ``ETagTransport`` computed, with the identity fields it was
/// computed from: one user's requests carry the same credential request after request, and
/// SHA-256 over a long token (a JWT is about a kilobyte) costs microseconds each time.
///
/// It holds one identity, in memory only (as the auth service that issued the credential does);
/// the next request with another identity replaces it, so nothing lingers beyond the last user.
/// With it, the last primary key and the URL and digest it was made of: a client polling one
/// resource asks for the same key request after request.
final class IdentityDigestMemo: Sendable {
    private struct Last {
        var fields: [String]
        var digest: String
    }

    private let last = LockedValue<Last?>(nil)

    private struct LastKey {
        var url: String
        var digest: String
        /// Kept with its hash, which is then not computed again either.
        var key: StoreKey
    }

    private let lastKey = LockedValue<LastKey?>(nil)

    /// The remembered primary key, when it was made for `url` (its absolute string) and `digest`.
    func key(forURL url: String, digest: String) -> StoreKey? {
        lastKey.withLock { last in
            guard let last, last.url == url, last.digest == digest else { return nil }
            return last.key
        }
    }

    /// Remembers `key` as the primary key of `url` for `digest`, in place of the last one.
    func remember(key: StoreKey, forURL url: String, digest: String) {
        lastKey.withLock { $0 = LastKey(url: url, digest: digest, key: key) }
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
