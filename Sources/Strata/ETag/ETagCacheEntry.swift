import Foundation

/// A response kept by an ``ETagStoreProtocol`` store so that a later `304 Not Modified` can be
/// answered with it: the stored response's parts plus the request headers its `Vary` nominated.
///
/// Entries are built by ``ETagTransport``; a store keeps them under the key it is given and never
/// needs to look inside: it hands them back as they were, in memory or written out through
/// `Codable` (an entry written by an earlier Strata still decodes).
public struct ETagCacheEntry: Sendable, Hashable, Codable {
    /// The entry's parts and the facts read from them, in one immutable object: an entry is
    /// copied several times per request (looked up, kept as a candidate, compared, stored), and
    /// a copy then costs one reference count instead of one per field; the facts (`Vary` names,
    /// validators) are read from the headers once, when the entry is made, not on every lookup.
    private final class Storage: Sendable {
        let statusCode: Int
        let headers: HTTPHeaders
        let body: Data
        let url: URL?
        let varyingRequestHeaders: HTTPHeaders
        let facts: HeaderFacts

        init(
            statusCode: Int, headers: HTTPHeaders, body: Data, url: URL?, varyingRequestHeaders: HTTPHeaders,
            facts: HeaderFacts? = nil
        ) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.url = url
            self.varyingRequestHeaders = varyingRequestHeaders
            self.facts = facts ?? HeaderFacts(headers)
        }

        /// A copy with some parts replaced; the facts are read again only when the headers change.
        func replacing(
            statusCode: Int? = nil, headers: HTTPHeaders? = nil, body: Data? = nil, url: URL?? = nil,
            varyingRequestHeaders: HTTPHeaders? = nil
        ) -> Storage {
            Storage(
                statusCode: statusCode ?? self.statusCode, headers: headers ?? self.headers, body: body ?? self.body,
                url: url ?? self.url, varyingRequestHeaders: varyingRequestHeaders ?? self.varyingRequestHeaders,
                facts: headers == nil ? facts : nil)
        }
    }

    /// What the lookups read from the stored headers.
    private struct HeaderFacts: Sendable {
        let varyHeaderNames: [String]
        let etag: String?
        let lastModified: String?
        let declaresFreshness: Bool

        init(_ headers: HTTPHeaders) {
            varyHeaderNames = HeaderRules.selectingNames(in: headers)
            etag = headers["ETag"]
            lastModified = headers["Last-Modified"]
            declaresFreshness = headers.contains("Cache-Control") || headers.contains("Expires")
        }
    }

    private var storage: Storage
    /// Kept beside the storage: a 304 changes only them, and then copies nothing else.
    private var times: ExchangeTimes?

    /// The stored response's status code: a 200, or another status RFC 9111 §3 lets a store
    /// keep (a 404 with `max-age`, a 301...); a response served from the entry has it.
    package var statusCode: Int {
        get { storage.statusCode }
        set { storage = storage.replacing(statusCode: newValue) }
    }
    /// The stored response's header fields, without hop-by-hop fields and `Set-Cookie`.
    package var headers: HTTPHeaders {
        get { storage.headers }
        set { storage = storage.replacing(headers: newValue) }
    }
    /// The stored response's body.
    package var body: Data {
        get { storage.body }
        set { storage = storage.replacing(body: newValue) }
    }
    /// The URL that produced the stored response, when known. Stores that write entries out
    /// keep it without userinfo and with secret query values redacted.
    package var url: URL? {
        get { storage.url }
        set { storage = storage.replacing(url: .some(newValue)) }
    }
    /// The request's values for the fields the response's `Vary` names (RFC 9111 §4.1), with
    /// lower-cased names, field lines combined and content-negotiation lists normalised (see
    /// `SelectingFieldValue`; entries written before hold them as sent, and still match); a
    /// field the request did not carry is absent. For an identity field
    /// (see ``ConditionalRequestPolicy/identityHeaderNames``) or a default secret header the
    /// value is a hex SHA-256 digest, never the credential, because entries are written to disk.
    package var varyingRequestHeaders: HTTPHeaders {
        get { storage.varyingRequestHeaders }
        set { storage = storage.replacing(varyingRequestHeaders: newValue) }
    }
    /// When the exchange that produced (or last revalidated) the response happened, for its
    /// age (RFC 9111 §4.2.3); `nil` for an entry whose age cannot be known (one written before
    /// Strata 0.4, or built without times), which is stale: never served without a 304.
    package var exchangeTimes: ExchangeTimes? {
        get { times }
        set { times = newValue }
    }

    /// Creates an entry from a response and the varying request headers it was selected by.
    ///
    /// - Parameters:
    ///   - response: The response to keep; its ``HTTPResponse/source`` is not stored.
    ///   - varyingRequestHeaders: The request's values for the fields in the response's `Vary`,
    ///     identity fields as digests (``ETagTransport`` builds them so).
    ///   - exchangeTimes: When the request was sent and the response received; without them the
    ///     entry is stale from the start.
    package init(response: HTTPResponse, varyingRequestHeaders: HTTPHeaders = [:], exchangeTimes: ExchangeTimes? = nil) {
        storage = Storage(
            statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url,
            varyingRequestHeaders: varyingRequestHeaders)
        times = exchangeTimes
    }

    /// The entry with `headers` and `exchangeTimes` in one copy; headers that share the
    /// entry's storage (a 304 that changed no field) keep the facts read from them.
    package func freshened(headers: HTTPHeaders, exchangeTimes: ExchangeTimes?) -> ETagCacheEntry {
        var copy = self
        if !headers.sharesStorage(with: storage.headers) { copy.storage = storage.replacing(headers: headers) }
        copy.times = exchangeTimes
        return copy
    }

    /// The stored `ETag` field, used as `If-None-Match`.
    package var etag: String? { storage.facts.etag }

    /// The stored `Last-Modified` field, used as `If-Modified-Since` when there is no ETag.
    package var lastModified: String? { storage.facts.lastModified }

    /// Whether the stored response has a `Cache-Control` or an `Expires` field: whether its own
    /// headers may give it a lifetime (read once, as every request's freshness check asks).
    package var declaresFreshness: Bool { storage.facts.declaresFreshness }

    /// The lower-cased field names in the stored response's `Vary`, plus `accept-encoding` when
    /// the response has a `Content-Encoding` (other than `identity`) and its `Vary` does not name
    /// it: a coded body is only served to requests asking for codings as its own did.
    package var varyHeaderNames: [String] { storage.facts.varyHeaderNames }

    /// Whether two entries hold the same parts (the facts follow from them).
    public static func == (lhs: ETagCacheEntry, rhs: ETagCacheEntry) -> Bool {
        let (a, b) = (lhs.storage, rhs.storage)
        return lhs.times == rhs.times
            && (a === b
                || (a.statusCode == b.statusCode && a.headers == b.headers && a.body == b.body && a.url == b.url
                    && a.varyingRequestHeaders == b.varyingRequestHeaders))
    }

    /// Hashes the parts equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(url)
        hasher.combine(varyingRequestHeaders)
        hasher.combine(exchangeTimes)
    }

    /// The stored response, marked as coming from the network.
    package var response: HTTPResponse {
        HTTPResponse(statusCode: statusCode, headers: headers, body: body, url: url)
    }

    /// About how many bytes the entry occupies: body plus header text. Stores use it for their
    /// size bounds, a store of your own (an ``ETagStoreProtocol`` conformance) included.
    public var approximateByteCount: Int {
        var bytes = body.count + (url?.absoluteString.utf8.count ?? 0)
        for field in headers { bytes += field.name.utf8.count + field.value.utf8.count + 4 }
        for field in varyingRequestHeaders { bytes += field.name.utf8.count + field.value.utf8.count + 4 }
        return bytes
    }

    private enum CodingKeys: String, CodingKey {
        case statusCode, headers, body, url, varyingRequestHeaders, exchangeTimes
    }

    /// Decodes an entry; header fields are `[name, value]` pairs in order. Exchange times that
    /// are absent, of another version or malformed decode as `nil` (a stale entry), so an
    /// entry written by an earlier or later Strata still serves as a validator.
    ///
    /// - Throws: `DecodingError` when another field is missing or a header pair is malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = Storage(
            statusCode: try container.decode(Int.self, forKey: .statusCode),
            headers: try Self.decodeHeaders(container, key: .headers),
            body: try container.decode(Data.self, forKey: .body),
            url: try container.decodeIfPresent(URL.self, forKey: .url),
            varyingRequestHeaders: try Self.decodeHeaders(container, key: .varyingRequestHeaders))
        times = try? container.decodeIfPresent(ExchangeTimes.self, forKey: .exchangeTimes)
    }

    /// Encodes the entry; header fields become `[name, value]` pairs in order.
    ///
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(statusCode, forKey: .statusCode)
        try container.encode(headers.map { [$0.name, $0.value] }, forKey: .headers)
        try container.encode(body, forKey: .body)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(varyingRequestHeaders.map { [$0.name, $0.value] }, forKey: .varyingRequestHeaders)
        try container.encodeIfPresent(exchangeTimes, forKey: .exchangeTimes)
    }

    private static func decodeHeaders(
        _ container: KeyedDecodingContainer<CodingKeys>,
        key: CodingKeys
    ) throws -> HTTPHeaders {
        let pairs = try container.decode([[String]].self, forKey: key)
        var headers = HTTPHeaders()
        for pair in pairs {
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "a header field must be a [name, value] pair")
            }
            headers.add(name: pair[0], value: pair[1])
        }
        return headers
    }
}
