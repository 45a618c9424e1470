import Foundation
import Strata

/// Where and as whom the client connects, parsed from a `redis://[user:password@]host[:port][/db]`
/// URL (the scheme Redis documents, https://www.iana.org/assignments/uri-schemes/prov/redis), or
/// `rediss://` for the same over TLS.
///
/// The password is held in a ``RedisPassword``, which prints as `<redacted>`, and
/// ``description`` shows the address and database only, so neither reaches an error, a log or
/// an event.
struct RedisEndpoint: Sendable, CustomStringConvertible {
    /// The host name or IP address (an IPv6 literal without its brackets).
    let host: String
    /// The TCP port. Default: 6379.
    let port: Int
    /// The ACL user for `AUTH user password` (Redis 6+), or `nil` for `AUTH password`.
    let user: String?
    /// The password, or `nil` when the server needs none.
    let password: RedisPassword?
    /// The logical database chosen with `SELECT`. Default: 0.
    let database: Int
    /// Whether the URL was `rediss://`: the connection runs TLS before anything is sent.
    let usesTLS: Bool

    static let defaultPort = 6379

    /// Parses `url`.
    ///
    /// - Throws: ``RedisETagStoreError/invalidURL(_:reason:)`` saying what to change; the URL in
    ///   it has its user information redacted.
    init(url: URL) throws(RedisETagStoreError) {
        let shown = Self.redacted(url)
        func invalid(_ reason: String) -> RedisETagStoreError { .invalidURL(shown, reason: reason) }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid("it is not a URL; write redis://host:6379")
        }
        switch components.scheme?.lowercased() {
        case "redis": usesTLS = false
        case "rediss": usesTLS = true
        default: throw invalid("the scheme must be redis:// (or rediss:// for TLS)")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.utf8.contains(0) else { throw invalid("it names no host; write redis://host:6379") }
        let port = components.port ?? Self.defaultPort
        guard (1...65_535).contains(port) else { throw invalid("the port must be between 1 and 65535") }
        guard components.percentEncodedQuery == nil, components.percentEncodedFragment == nil else {
            throw invalid("a query or fragment is not supported; pass options to the initializer")
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = components.password.flatMap { $0.isEmpty ? nil : RedisPassword($0) }
        guard user == nil || password != nil else {
            throw invalid("a user name needs a password: redis://user:password@host; for a password alone, redis://:password@host")
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        // A path holding an '@' is the tail of a password whose '/' was not percent-encoded.
        guard !components.percentEncodedPath.contains("@") else {
            throw invalid(
                "the text after the host holds an '@', as when a password contains '/', '?' or '#' that are not "
                    + "percent-encoded; write them as %2F, %3F and %23 (and '@' as %40)")
        }
        database = try Self.database(fromPath: components.path, invalid: invalid)
    }

    /// The same credentials and database at another server, such as a cluster node a seed
    /// named.
    func at(_ node: RedisNodeAddress) -> RedisEndpoint {
        RedisEndpoint(host: node.host, port: node.port, user: user, password: password, database: database, usesTLS: usesTLS)
    }

    private init(host: String, port: Int, user: String?, password: RedisPassword?, database: Int, usesTLS: Bool) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// `host:port/db`, without user or password.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(shownHost):\(port)/\(database)"
    }

    private static func database(
        fromPath path: String,
        invalid: (String) -> RedisETagStoreError
    ) throws(RedisETagStoreError) -> Int {
        let digits = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        guard !digits.isEmpty else { return 0 }
        guard digits.utf8.count <= 9, digits.utf8.allSatisfy({ (48...57).contains($0) }), let database = Int(digits) else {
            throw invalid("the path must be a database number such as /0 or /3")
        }
        return database
    }

    /// The URL's text with its user information, query and fragment replaced: any of them may
    /// hold a password, even a misplaced one. The URL is being rejected, so its user information
    /// is taken to reach its last `@` (a password pasted with a raw `/`, as in
    /// `redis://:Xy@9/kQ2v@cache:6379`, parses with the rest of the password as the path).
    static func redacted(_ url: URL) -> String {
        // Userinfo first: a raw '?' or '#' in a password would otherwise end the redaction early.
        var text = Redaction.redactingUserinfo(in: url.absoluteString, .rejected)
        if let queryStart = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text.replaceSubrange(queryStart..., with: "?\(Redaction.placeholder)")
        }
        return text
    }
}

/// A Redis password: readable only through ``value``, printed and mirrored as `<redacted>`, so
/// string interpolation, `dump` or a debugger never show it.
struct RedisPassword: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The password itself, for `AUTH` only.
    let value: String

    init(_ value: String) { self.value = value }

    var description: String { "<redacted>" }
    var debugDescription: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: []) }
}
