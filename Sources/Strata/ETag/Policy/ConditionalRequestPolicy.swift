#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The rules ``ETagTransport`` follows, as pure functions of requests, responses and entries:
/// which requests use the store, how entries are keyed, what is stored, how a 304 is matched
/// and how stored headers are freshened. No I/O happens here; the transport does that.
///
/// ## Keys
/// A *primary key* names a resource as one identity sees it: the URL without its fragment
/// (scheme and host lower-cased), so `GET` and `HEAD` share entries, plus a partition derived
/// from the request's identity headers (by default ``defaultIdentityHeaderNames``). The partition
/// is a SHA-256 digest of those values, so keys, file names and events never contain a
/// credential, and one user's body is never served to another.
///
/// A response's `Vary` is only known once it arrives, so the entry stored under the primary key
/// remembers the names its `Vary` listed. When they are not empty, the entry is also stored under
/// a *variant key*: the primary key plus the request's values for those names, where the value
/// of an identity field or of a default secret header (`Vary: Authorization`, `Vary: X-API-Key`)
/// is replaced by its SHA-256 digest, as in the partition, so neither keys nor stored entries
/// ever hold a credential. A lookup reads
/// the primary key first; if that entry's variant is not the request's, it computes the variant
/// key from the entry's `Vary` names and reads that. The most recent variant is therefore stored
/// twice; every variant keeps its own validators.
public struct ConditionalRequestPolicy: Sendable, Hashable {
    /// Request fields whose values partition entries by identity. Default:
    /// ``defaultIdentityHeaderNames``.
    public var identityHeaderNames: [String]

    /// The request headers ``Redaction`` treats as secret by default (`Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `X-API-Key`, `X-Auth-Token`; not `Set-Cookie`, a
    /// response field), lower-cased: what logs hide, entries are partitioned by.
    public static let defaultIdentityHeaderNames: [String] =
        Redaction.defaultHeaders.subtracting(["set-cookie"]).sorted()

    /// Creates a policy.
    ///
    /// - Parameter identityHeaderNames: Request fields that identify the user. Requests whose
    ///   values differ never share entries. Add any custom credential header your API uses
    ///   (`defaultIdentityHeaderNames + ["X-Tenant-Key"]`). Whatever you pass, the default
    ///   names' values reach keys and stored entries only as digests.
    public init(identityHeaderNames: [String] = ConditionalRequestPolicy.defaultIdentityHeaderNames) {
        self.identityHeaderNames = identityHeaderNames
    }

    /// What the transport does with a request.
    enum Plan: Hashable, Sendable {
        /// Send it untouched and leave the store alone.
        case passThrough(ETagEvent.PassThroughReason)
        /// Use the store: add validators, answer 304s. `storesBody` is false for `HEAD`.
        case useStore(storesBody: Bool)
        /// Send it; if it succeeds, remove the stored entries for its URL (RFC 9111 §4.4).
        case invalidateOnSuccess
    }

    /// Decides how `request` relates to the store.
    func plan(for request: URLRequest) -> Plan {
        let method = HTTPMethod(request)
        let headers = HTTPHeaders(request)
        guard request.url != nil else { return .passThrough(.noURL) }
        switch method {
        case .post, .put, .patch, .delete:
            return .invalidateOnSuccess
        case .get, .head:
            break
        default:
            return .passThrough(.method)
        }
        let conditionals = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
        if conditionals.contains(where: headers.contains) { return .passThrough(.callerConditional) }
        if headers.contains("Range") { return .passThrough(.range) }
        if HeaderRules.forbidsStorage(headers) { return .passThrough(.requestNoStore) }
        return .useStore(storesBody: method == .get)
    }

    // MARK: Keys

    /// The primary key for `request`'s URL and identity, or `nil` when it has no URL.
    ///
    /// A URL's `user:password@` is a credential: it is left out of the key (keys are written to
    /// disk and reported) and counted in the identity digest instead, like `Authorization`.
    func primaryKey(for request: URLRequest) -> String? {
        guard let url = request.url else { return nil }
        var identity = HTTPHeaders(request)
        if url.user != nil || url.password != nil {
            identity.add(name: Self.userinfoField, value: "\(url.user ?? ""):\(url.password ?? "")")
        }
        let digest = Self.identityDigest(of: identity, names: identityHeaderNames + [Self.userinfoField]) ?? "-"
        return "etag-v1 " + Self.normalized(url) + " id=" + digest
    }

    /// The identity field standing for URL userinfo; not a token, so no real header has this name.
    private static let userinfoField = ":userinfo"

    /// The key of the variant of `primaryKey` that `request` selects, given the `Vary` names.
    func variantKey(primaryKey: String, varyNames: [String], request: URLRequest) -> String {
        let selected = varyingHeaders(of: request, names: varyNames)
        let parts = varyNames.sorted().map { name -> String in
            // Length-prefixed so no value can imitate another field's boundary.
            guard let value = selected[name] else { return name }
            return "\(name)=\(value.utf8.count):\(value)"
        }
        return primaryKey + " vary " + parts.joined(separator: ";")
    }

    /// The keys an entry for `request` is stored under: the primary key, and the variant key
    /// when the entry's response has a `Vary`.
    func storageKeys(for entry: ETagCacheEntry, primaryKey: String, request: URLRequest) -> [String] {
        let names = entry.varyHeaderNames
        guard !names.isEmpty else { return [primaryKey] }
        return [primaryKey, variantKey(primaryKey: primaryKey, varyNames: names, request: request)]
    }

    /// Whether `entry` may answer `request`: every field its `Vary` names has the same value in
    /// the request as when the entry was stored (RFC 9111 §4.1), absent matching absent.
    func selects(_ entry: ETagCacheEntry, for request: URLRequest) -> Bool {
        let names = entry.varyHeaderNames
        guard !names.contains("*") else { return false }
        let current = varyingHeaders(of: request, names: names)
        return names.allSatisfy { current[$0] == entry.varyingRequestHeaders[$0] }
    }

    /// A hex SHA-256 digest of the identity fields, or `-` when the request carries none.
    func identityPartition(of headers: HTTPHeaders) -> String {
        Self.identityDigest(of: headers, names: identityHeaderNames) ?? "-"
    }

    /// A hex SHA-256 digest of the values of `names` in `headers`, or `nil` when none is present.
    static func identityDigest(of headers: HTTPHeaders, names: [String]) -> String? {
        var material = ""
        for name in names.map({ $0.lowercased() }).sorted() {
            for value in headers.values(for: name) { material += "\(name):\(value.utf8.count):\(value)\n" }
        }
        guard !material.isEmpty else { return nil }
        // A fixed label keeps this digest distinct from any other SHA-256 use of the same value.
        return SHA256.hexDigest(Array("strata-etag-identity\u{0}".utf8) + Array(material.utf8))
    }

    /// The request's values for `names`, lower-cased names, whitespace trimmed. The value of an
    /// identity field, or of a default secret header even when `identityHeaderNames` leaves it
    /// out, is its ``identityDigest(of:names:)`` instead: these values go into variant keys and
    /// stored entries, which are written to disk and reported, and must never hold a
    /// credential. Comparing digests still tells one credential from another (RFC 9111 §4.1).
    func varyingHeaders(of request: URLRequest, names: [String]) -> HTTPHeaders {
        let headers = HTTPHeaders(request)
        let identityNames = Set(identityHeaderNames.map { $0.lowercased() } + Self.defaultIdentityHeaderNames)
        var selected = HTTPHeaders()
        for name in names where name != "*" {
            if identityNames.contains(name.lowercased()) {
                guard let digest = Self.identityDigest(of: headers, names: [name]) else { continue }
                selected.add(name: name, value: digest)
                continue
            }
            let values = headers.values(for: name).map { $0.trimmingASCIIWhitespace() }
            if !values.isEmpty { selected.add(name: name, value: values.joined(separator: ", ")) }
        }
        return selected
    }

    /// The URL without fragment and userinfo, scheme and host lower-cased: the resource, not the
    /// method or who asks.
    static func normalized(_ url: URL) -> String {
        // A URL URLComponents cannot take apart is keyed by its digest: its text may hold userinfo.
        let opaque = "sha256:" + SHA256.hexDigest(Array(url.absoluteString.utf8))
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return opaque }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        return components.string ?? opaque
    }
}
