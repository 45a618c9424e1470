/// The partition an ``ETagTransport`` keeps a request's entries in: which requests may be
/// answered with each other's stored bodies. Set it as ``ConditionalRequestPolicy/partition``.
///
/// - ``perCredential`` (the default) partitions by the values of the request's identity headers
///   (``ConditionalRequestPolicy/identityHeaderNames``) and URL userinfo: safe without any
///   knowledge of the API, but a new token is a new partition, so after every token refresh each
///   resource is downloaded in full once, and instances that each hold their own token for one
///   service account share nothing.
/// - ``named(_:)`` is a partition the caller names (an account, a tenant, a service identity):
///   a token refresh does not change it, and a fleet that names the same partition shares it.
///   Identity header values and userinfo are then not part of the key; the caller asserts that
///   every request sent in that partition may be answered with any other's response.
///
/// Either way, when the transport below sends the request with a client certificate (it
/// conforms to ``CacheIdentityProviding``, as `PinningTransport` does), that identity is part
/// of the partition too: one name with two client certificates is two partitions. Keys hold a
/// SHA-256 digest of the partition, never the name or a credential; this value itself keeps only
/// the name's digest, so its description, `dump` and equality never show the name.
public struct CachePartition: Sendable, Hashable, CustomStringConvertible {
    /// What the partition is made of.
    enum Kind: Sendable, Hashable {
        /// The request's identity header values and userinfo.
        case perCredential
        /// A caller's name, as its ``CachePartition/digest(ofName:)``.
        case named(digest: String)
    }

    let kind: Kind

    private init(kind: Kind) {
        self.kind = kind
    }

    /// The partition made of the request's identity header values and URL userinfo: requests
    /// whose credentials differ (including the same user's token before and after a refresh)
    /// never share entries.
    public static let perCredential = CachePartition(kind: .perCredential)

    /// Creates a partition named by the caller, which a token refresh does not change.
    ///
    /// Every request sent through a policy with this partition (and the same client identity)
    /// may be answered with a body another of them stored: name a partition only for requests
    /// that are authorized to see the same responses, such as one service account's. Different
    /// names never share entries. Only the name's SHA-256 digest is kept.
    ///
    /// - Parameter name: Any stable text (`"billing-service"`, a tenant ID); the empty string is
    ///   a name like any other.
    /// - Returns: The partition.
    public static func named(_ name: String) -> CachePartition {
        CachePartition(kind: .named(digest: digest(ofName: name)))
    }

    /// `per credential`, or `named <the first 12 hex digits of the name's digest>`: never the name.
    public var description: String {
        switch kind {
        case .perCredential: "per credential"
        case .named(let digest): "named \(digest.prefix(12))"
        }
    }

    /// SHA-256 of a fixed label and the name, as 64 hex digits.
    private static func digest(ofName name: String) -> String {
        var hasher = SHA256()
        // The label keeps this digest apart from every other SHA-256 use of the same text.
        hasher.update(utf8: "strata-etag-partition\u{0}")
        hasher.update(utf8: name)
        return hasher.finalizeHex()
    }
}
