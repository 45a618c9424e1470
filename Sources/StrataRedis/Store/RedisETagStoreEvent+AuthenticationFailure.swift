extension RedisETagStoreEvent {
    /// Why a ``RedisETagStore`` with ``RedisEntryAuthenticationKey``s did not serve a stored
    /// value (``RedisETagStoreEvent/unauthenticatedEntry(keyDigest:failure:)``).
    public enum AuthenticationFailure: Sendable, Hashable, CustomStringConvertible {
        /// The value carries no signature: an entry a store without keys wrote (expected once per
        /// entry while a fleet turns authentication on), or a value someone planted. The lookup
        /// deleted it.
        case unsigned
        /// The value was signed with a key this store does not hold; `id` is that key's
        /// ``RedisEntryAuthenticationKey/id``. Expected while a rotation is rolled out to
        /// instances that do not know the new key yet; otherwise a forgery (an `id` is no
        /// secret). The value is left in place, since the instances that hold that key serve it:
        /// it is a miss here, renewed like any entry read, until it expires or a download this
        /// instance stores overwrites it. An `id` no instance of the fleet was given is a planted
        /// value; delete its key.
        case unknownKey(id: String)
        /// The signature does not match: the value was changed after it was signed (its body,
        /// freshness or headers), copied from another Redis key, or forged. The lookup deleted it.
        case tagMismatch

        /// What happened, in a few words for a log line.
        public var description: String {
            switch self {
            case .unsigned: "the value is not signed"
            case .unknownKey(let id): "signed with key \(id), which this store does not hold"
            case .tagMismatch: "the signature does not match: changed after signing, moved from another key, or forged"
            }
        }
    }
}
