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
/// (scheme and host lower-cased), so `GET` and `HEAD` share entries, plus a ``partition``:
/// - ``CachePartition/perCredential`` (the default): the request's identity headers (by default
///   ``defaultIdentityHeaderNames``) and URL userinfo;
/// - ``CachePartition/named(_:)``: the caller's name, whatever the credentials;
///
/// and, either way, the client identity (TLS client certificate) the transport below reports
/// for the URL (see ``CacheIdentityProviding``). The key holds a SHA-256 digest of these, so
/// keys, file names and events never contain a credential, a partition name or a certificate,
/// and one identity's body is never served to another.
///
/// A response's `Vary` is only known once it arrives, so the entry stored under the primary key
/// remembers the names its `Vary` listed. When they are not empty, the entry is also stored under
/// a *variant key*: the primary key plus the request's values for those names, where the value
/// of an identity field or of a default secret header (`Vary: Authorization`, `Vary: X-API-Key`)
/// is replaced by its SHA-256 digest, as in the partition, so neither keys nor stored entries
/// ever hold a credential. A lookup reads the primary key first; if that entry's variant is not
/// the request's, it computes the variant key from the entry's `Vary` names and reads that. The most recent variant is therefore stored
/// twice; every variant keeps its own validators.
public struct ConditionalRequestPolicy: Sendable, Hashable {
    /// Request fields whose values partition entries by identity. Default:
    /// ``defaultIdentityHeaderNames``.
    public var identityHeaderNames: [String] {
        didSet { (identityFieldNames, keyIdentityFieldNames) = Self.fieldNames(identityHeaderNames) }
    }

    /// ``identityHeaderNames`` lower-cased and sorted, as the identity digest reads them, and the
    /// same with the userinfo field, as the primary key's digest reads them: kept so that every
    /// request does not lower-case and sort them again. Derived from ``identityHeaderNames``, so
    /// the synthesized equality still compares policies by their identity fields.
    private var identityFieldNames: [String]
    private var keyIdentityFieldNames: [String]

    /// Which requests share entries: ``CachePartition/perCredential`` (the default) or a
    /// ``CachePartition/named(_:)`` partition that survives a token refresh. A client identity
    /// the transport below reports is part of the partition either way.
    public var partition: CachePartition

    /// The request headers ``Redaction`` treats as secret by default (`Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `X-API-Key`, `X-Auth-Token`; not `Set-Cookie`, a
    /// response field), lower-cased: what logs hide, entries are partitioned by.
    public static let defaultIdentityHeaderNames: [String] =
        Redaction.defaultHeaders.subtracting(["set-cookie"]).sorted()

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - identityHeaderNames: Request fields that identify the user. With the
    ///     ``CachePartition/perCredential`` partition, requests whose values differ never share
    ///     entries. Add any custom credential header your API uses
    ///     (`defaultIdentityHeaderNames + ["X-Tenant-Key"]`). Whatever you pass, the default
    ///     names' values reach keys and stored entries only as digests.
    ///   - partition: Which requests share entries (see ``CachePartition``). Default:
    ///     ``CachePartition/perCredential``.
    public init(
        identityHeaderNames: [String] = ConditionalRequestPolicy.defaultIdentityHeaderNames,
        partition: CachePartition = .perCredential
    ) {
        self.identityHeaderNames = identityHeaderNames
        self.partition = partition
        (identityFieldNames, keyIdentityFieldNames) = Self.fieldNames(identityHeaderNames)
    }

    private static func lowercasedSorted(_ names: [String]) -> [String] {
        names.map { $0.lowercased() }.sorted()
    }

    private static func fieldNames(_ names: [String]) -> (identity: [String], key: [String]) {
        (lowercasedSorted(names), lowercasedSorted(names + [userinfoField]))
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
    func plan(for request: HTTPRequest) -> Plan {
        switch request.method {
        case .get, .head:
            break
        case let method where method.isSafe:
            return .passThrough(.method)
        default:
            // §4.4: any method not known to be safe (POST, PUT, PATCH, DELETE, and every method
            // this layer does not know, such as WebDAV's or M-SEARCH) may change the resource.
            return .invalidateOnSuccess
        }
        // One pass over the request's fields (usually one or two), not one per name looked for.
        // A conditional field is the reason whatever its place (`Range` usually comes with `If-Range`).
        // The caller's own If-None-Match and If-Modified-Since use the store (RFC 9111 §4.3.2):
        // a stored response answers them; the others apply to the origin only.
        var hasRange = false
        var mayForbidStorage = false
        for field in request.headers {
            let name = field.name
            if Self.isConditionalFieldName(name), !Self.isCacheEvaluatedFieldName(name) {
                return .passThrough(.callerConditional)
            }
            if HTTPHeaders.equal(name, "Range") { hasRange = true }
            if HTTPHeaders.equal(name, "Cache-Control") { mayForbidStorage = true }
        }
        if hasRange { return .passThrough(.range) }
        if mayForbidStorage, HeaderRules.forbidsStorage(request.headers) { return .passThrough(.requestNoStore) }
        return .useStore(storesBody: request.method == .get)
    }

    /// Whether `name` is a conditional request field (RFC 9110 §13.1): `If-None-Match`,
    /// `If-Modified-Since`, `If-Match`, `If-Unmodified-Since` or `If-Range`.
    private static func isConditionalFieldName(_ name: String) -> Bool {
        // All start with "If-": most names are told apart by their first byte.
        guard let first = name.utf8.first, first | 0x20 == UInt8(ascii: "i") else { return false }
        return HTTPHeaders.equal(name, "If-None-Match") || HTTPHeaders.equal(name, "If-Modified-Since")
            || HTTPHeaders.equal(name, "If-Match") || HTTPHeaders.equal(name, "If-Unmodified-Since")
            || HTTPHeaders.equal(name, "If-Range")
    }

    /// Whether `name` is a conditional field a cache evaluates itself (RFC 9111 §4.3.2):
    /// `If-None-Match` or `If-Modified-Since`.
    private static func isCacheEvaluatedFieldName(_ name: String) -> Bool {
        HTTPHeaders.equal(name, "If-None-Match") || HTTPHeaders.equal(name, "If-Modified-Since")
    }

    // MARK: Keys

    /// The primary key for `request`; with `memo`, the identity digest of the same partition as
    /// last time is not computed again, nor the key of a URL and partition it remembers.
    func primaryKey(for request: HTTPRequest, clientIdentity: String? = nil, memo: IdentityDigestMemo? = nil) -> String {
        storeKey(for: request, clientIdentity: clientIdentity, memo: memo).text
    }

    /// ``primaryKey(for:clientIdentity:memo:)`` with its hash, which `memo` remembers with it.
    func storeKey(for request: HTTPRequest, clientIdentity: String? = nil, memo: IdentityDigestMemo? = nil) -> StoreKey {
        let text = request.url.absoluteString
        // A URL of the common shape has no userinfo; its key is written in one string, the
        // resource lower-cased in place. With `memo`, a resource asked for recently by the same
        // identity reuses its key (only keys of that shape are remembered).
        func commonDigest() -> String {
            identityDigest(of: request, userinfo: nil, clientIdentity: clientIdentity, memo: memo)
        }
        // A URL with userinfo ("@") is never of the common shape: its digest would be computed
        // for nothing (and replace the memo's), so it does not ask the memo for a key.
        if let memo, !Self.containsAt(text) {
            let digest = commonDigest()
            if let key = memo.key(forURL: text, digest: digest) { return key }
            if let key = Self.commonShapeKey(ofAbsoluteString: text, digest: { digest }) {
                let storeKey = StoreKey(key)
                memo.remember(key: storeKey, forURL: text, digest: digest)
                return storeKey
            }
        } else if let key = Self.commonShapeKey(ofAbsoluteString: text, digest: commonDigest) {
            return StoreKey(key)
        }
        let key = ResourceKey.parsed(request.url, absoluteString: text)
        let digest = identityDigest(of: request, userinfo: key.userinfo, clientIdentity: clientIdentity, memo: memo)
        var primaryKey = "etag-v1 "
        primaryKey.reserveCapacity(12 + key.resource.utf8.count + digest.utf8.count)
        primaryKey += key.resource
        primaryKey += " id="
        primaryKey += digest
        return StoreKey(primaryKey)
    }

    /// Whether `text` holds an "@", found with `memchr` (a byte-by-byte `contains` over a URL
    /// cost more than the rest of the key's lookup).
    private static func containsAt(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(UInt8(ascii: "@")), bytes.count) != nil
        } ?? text.utf8.contains(UInt8(ascii: "@"))
    }

    /// The primary key of a URL of the common shape (see ``SimpleURL``) with the identity part
    /// `digest` gives (asked for only then), built in one allocation; `nil` for any other URL.
    private static func commonShapeKey(ofAbsoluteString text: String, digest: () -> String) -> String? {
        SimpleURL.withResource(ofAbsoluteString: text) { resource, lowercasedCount in
            var digest = digest()
            return digest.withUTF8 { digest in
                let prefix: StaticString = "etag-v1 ", separator: StaticString = " id="
                let length = prefix.utf8CodeUnitCount + resource.count + separator.utf8CodeUnitCount + digest.count
                return String(unsafeUninitializedCapacity: length) { output in
                    var written = 0
                    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                        _ = UnsafeMutableBufferPointer(rebasing: output[written..<(written + bytes.count)]).initialize(
                            fromContentsOf: bytes)
                        written += bytes.count
                    }
                    prefix.withUTF8Buffer { append($0) }
                    written += SimpleURL.copyResource(
                        resource, lowercasing: lowercasedCount,
                        to: UnsafeMutableBufferPointer(rebasing: output[written...]))
                    separator.withUTF8Buffer { append($0) }
                    append(digest)
                    return written
                }
            }
        }
    }

    /// The partition's part of a primary key: the digest of its identity fields, or `-`.
    private func identityDigest(
        of request: HTTPRequest, userinfo: String?, clientIdentity: String?,
        memo: IdentityDigestMemo?
    ) -> String {
        // The partition's fields, digested as identity fields are. The pseudo-fields' names start
        // with ":", which no real field name can, so no header can imitate them; with neither a
        // name nor a client identity, the key is the one versions before partitions wrote, so
        // upgrading orphans nothing. The pseudo-fields are read as if appended to the headers,
        // without copying them.
        var identity: IdentityFields
        switch partition.kind {
        case .perCredential:
            identity = IdentityFields(
                headers: request.headers, names: keyIdentityFieldNames,
                first: userinfo.map { (Self.userinfoField, $0) })
        case .named(let digest):
            identity = IdentityFields(
                headers: HTTPHeaders(), names: Self.partitionFieldOnly,
                first: (Self.partitionField, digest))
        }
        if let clientIdentity {
            identity.second = (Self.clientIdentityField, clientIdentity)
            identity.extraName = Self.clientIdentityField
        }
        return Self.identityDigest(of: identity, memo: memo) ?? "-"
    }

    /// The identity fields of a primary key: those of `headers`, then up to two pseudo-fields
    /// as if appended to them, named by `names` and then `extraName`.
    private struct IdentityFields {
        var headers: HTTPHeaders
        var names: [String]
        var first: (name: String, value: String)?
        var second: (name: String, value: String)?
        var extraName: String?

        /// Calls `body` with each present field as its lower-cased name and its value, in digest
        /// order, until it returns `false`; returns whether it never did.
        func forEach(_ body: (String, String) -> Bool) -> Bool {
            func visit(_ name: String) -> Bool {
                for field in headers where HTTPHeaders.equal(field.name, name) {
                    guard body(name, field.value) else { return false }
                }
                if let first, HTTPHeaders.equal(first.name, name), !body(name, first.value) { return false }
                if let second, HTTPHeaders.equal(second.name, name), !body(name, second.value) { return false }
                return true
            }
            for name in names where !visit(name) { return false }
            if let extraName { return visit(extraName) }
            return true
        }
    }

    /// The digest of `identity`'s fields, or `nil` when there are none; with `memo`, the digest
    /// of the same fields as last time, compared in place, is not computed again.
    private static func identityDigest(of identity: IdentityFields, memo: IdentityDigestMemo?) -> String? {
        if let memo,
            let remembered = memo.remembered(where: { fields in
                var index = 0
                let matched = identity.forEach { name, value in
                    guard index + 1 < fields.count, fields[index] == name, fields[index + 1] == value else { return false }
                    index += 2
                    return true
                }
                return matched && index == fields.count
            })
        {
            return remembered
        }
        var fields: [String] = []
        _ = identity.forEach { name, value in
            fields.append(name)
            fields.append(value)
            return true
        }
        guard !fields.isEmpty else { return nil }
        let digest = digest(ofIdentityFields: fields)
        memo?.remember(fields, digest: digest)
        return digest
    }

    /// The identity field standing for URL userinfo; not a token, so no real header has this name.
    private static let userinfoField = ":userinfo"
    /// The field standing for a named partition's digest, in place of every credential.
    private static let partitionField = ":partition"
    private static let partitionFieldOnly = [partitionField]
    /// The field standing for the client identity the transport below reports.
    private static let clientIdentityField = ":client-identity"

    /// The key of the variant of `primaryKey` that `request` selects.
    func variantKey(primaryKey: String, varyNames: [String], request: HTTPRequest) -> String {
        let selected = varyingHeaders(of: request, names: varyNames)
        let parts = varyNames.sorted().map { name -> String in
            // Length-prefixed so no value can imitate another field's boundary.
            guard let value = selected[name] else { return name }
            return "\(name)=\(value.utf8.count):\(value)"
        }
        return primaryKey + " vary " + parts.joined(separator: ";")
    }

    /// The keys an entry for `request` is stored under.
    func storageKeys(for entry: ETagCacheEntry, primaryKey: String, request: HTTPRequest) -> [String] {
        let names = entry.varyHeaderNames
        guard !names.isEmpty else { return [primaryKey] }
        return [primaryKey, variantKey(primaryKey: primaryKey, varyNames: names, request: request)]
    }

    /// Whether `entry` may answer `request`.
    func selects(_ entry: ETagCacheEntry, for request: HTTPRequest) -> Bool {
        let names = entry.varyHeaderNames
        guard !names.isEmpty else { return true }
        guard !names.contains("*") else { return false }
        let current = varyingHeaders(of: request, names: names)
        return names.allSatisfy { name in
            let stored = entry.varyingRequestHeaders[name]
            if current[name] == stored { return true }
            // An entry stored before values were normalised holds them as they were sent (lines
            // combined and trimmed): normalised now, it matches as a new one would. Digests of
            // identity fields are never normalised.
            guard let value = current[name], let stored, !isIdentityField(name) else { return false }
            return SelectingFieldValue.normalized(name: name, combined: stored) == value
        }
    }

    /// Whether the value of the request field `name` (lower-cased) is kept as a digest: an
    /// identity field, or a default secret header.
    private func isIdentityField(_ name: String) -> Bool {
        identityFieldNames.contains(name) || Self.defaultIdentityHeaderNames.contains(name)
    }

    /// A hex SHA-256 digest of the identity fields, or `-` when the request carries none.
    func identityPartition(of headers: HTTPHeaders) -> String {
        Self.identityDigest(of: headers, lowercasedSortedNames: identityFieldNames) ?? "-"
    }

    /// A hex SHA-256 digest of the values of `names` in `headers`, or `nil` when none is present.
    static func identityDigest(of headers: HTTPHeaders, names: [String]) -> String? {
        identityDigest(of: headers, lowercasedSortedNames: lowercasedSorted(names))
    }

    /// ``identityDigest(of:names:)`` for names already lower-cased and sorted.
    private static func identityDigest(of headers: HTTPHeaders, lowercasedSortedNames names: [String]) -> String? {
        identityDigest(of: IdentityFields(headers: headers, names: names), memo: nil)
    }

    /// SHA-256 over a fixed label and "name:length:value\n" per field (length-prefixed so no value
    /// can imitate another field), as 64 hex digits.
    private static func digest(ofIdentityFields fields: [String]) -> String {
        var hasher = SHA256()
        // The label keeps this digest distinct from any other SHA-256 use of the same value.
        hasher.update(utf8: "strata-etag-identity\u{0}")
        for index in stride(from: 0, to: fields.count, by: 2) {
            hasher.update(utf8: fields[index])
            hasher.update(utf8: ":\(fields[index + 1].utf8.count):")
            hasher.update(utf8: fields[index + 1])
            hasher.update(utf8: "\n")
        }
        return hasher.finalizeHex()
    }

    /// ``varyingHeaders(of:names:)`` for `request`.
    func varyingHeaders(of request: HTTPRequest, names: [String]) -> HTTPHeaders {
        guard !names.isEmpty else { return HTTPHeaders() }
        let headers = request.headers
        var selected = HTTPHeaders()
        for name in names where name != "*" {
            let lowered = name.lowercased()
            if identityFieldNames.contains(lowered) || Self.defaultIdentityHeaderNames.contains(lowered) {
                guard let digest = Self.identityDigest(of: headers, names: [name]) else { continue }
                selected.add(name: name, value: digest)
                continue
            }
            // §4.1: compared after the normalisations the field's syntax allows.
            if let value = SelectingFieldValue.normalized(name: lowered, values: headers.values(for: name)) {
                selected.add(name: name, value: value)
            }
        }
        return selected
    }

    /// The URL without fragment and userinfo, scheme and host lower-cased: the resource, not the
    /// method or who asks.
    static func normalized(_ url: URL) -> String {
        ResourceKey(url).resource
    }
}
