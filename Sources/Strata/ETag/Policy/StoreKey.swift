/// A store key with its hash, computed once per request.
///
/// A key is a URL and a 64-digit digest, and hashing it costs about as much as the rest of a
/// table lookup's work. A request that must go to the network looks it up in the in-memory
/// store, touches its use order, checks it again after the response and files its flight for
/// coalescing: four hashes of the same text. With the hash carried along, the text is hashed
/// once (or never, when ``IdentityDigestMemo`` remembers the key), and a comparison of two
/// different keys stops at their hashes instead of reading both texts.
///
/// The hash is the process's `hashValue`: valid in memory only, never written anywhere.
struct StoreKey: Hashable, Sendable {
    /// The key as stores and events know it.
    let text: String
    /// `text.hashValue`.
    let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    static func == (lhs: StoreKey, rhs: StoreKey) -> Bool {
        lhs.hash == rhs.hash && lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
