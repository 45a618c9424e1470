import Foundation
import Strata
import StrataPinning

/// `strata-demo get`'s command line, checked: every value is well-formed before anything is
/// read, opened or sent. Files (`--ca`, `--data @file`, `--etag-dir`, `-o`) are only named here.
struct GetOptions: Equatable, Sendable {
    /// Where a request body comes from.
    enum Body: Equatable, Sendable {
        /// The text itself, sent as UTF-8.
        case text(String)
        /// The bytes of a file, read when the command runs.
        case file(String)
    }

    /// The most retries `--retries` accepts; more would only hammer a failing server.
    static let maxRetries = 10
    /// The longest `--timeout` accepted, in seconds (a day).
    static let maxTimeoutSeconds = 86_400.0

    var url: URL
    var method: HTTPMethod
    var headers: HTTPHeaders
    var pins: [SPKIPin]
    var caFile: String?
    var body: Body?
    var token: String?
    var etagDirectory: String?
    var retries: Int
    var timeout: Duration?
    var outputFile: String?
    var jsonEvents: Bool
    var verbose: Bool
    var includeHead: Bool

    /// Checks the parsed arguments of `get`.
    ///
    /// - Throws: ``UsageError`` naming the first malformed value: the URL, a pin, a header, the
    ///   method, the token, a number.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        let spec = GetCommand.spec
        let text = parsed.positionals[0]
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw spec.usageError("'\(text)' is not an http or https URL; write it as https://host[:port]/path.")
        }
        self.url = url
        pins = []
        for pin in parsed.values("--pin") {
            do { pins.append(try SPKIPin(pin)) } catch { throw spec.usageError(error.description) }
        }
        guard pins.isEmpty || scheme == "https" else {
            throw spec.usageError("--pin needs an https URL: a pinned host is never contacted in cleartext.")
        }
        headers = HTTPHeaders()
        for field in parsed.values("--header") {
            guard let colon = field.firstIndex(of: ":") else {
                throw spec.usageError("Write a header as 'Name: value', not '\(field)'.")
            }
            let name = String(field[..<colon])
            let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            do { try HTTPHeaders.validate(name: name, value: value) } catch { throw spec.usageError(error.description) }
            headers.add(name: name, value: value)
        }
        token = parsed.value("--token")
        if let token {
            // The message must not repeat the token: it is a secret, and may be half-pasted.
            guard !token.isEmpty, (try? HTTPHeaders.validate(name: "Authorization", value: "Bearer \(token)")) != nil,
                  !token.contains(" ") else {
                throw spec.usageError("The --token value is empty or contains spaces or control characters; pass the bare token.")
            }
        }
        if let data = parsed.value("--data") {
            body = data.hasPrefix("@") ? .file(String(data.dropFirst())) : .text(data)
            if case .file(let path) = body, path.isEmpty { throw spec.usageError("Write --data @<file> with a file name after '@'.") }
        }
        let methodName = parsed.value("--request") ?? (body == nil ? "GET" : "POST")
        guard !methodName.isEmpty, (try? HTTPHeaders.validate(name: methodName, value: "")) != nil else {
            throw spec.usageError("'\(methodName)' is not an HTTP method; use a token such as GET, POST or PUT.")
        }
        method = HTTPMethod(rawValue: methodName.uppercased())
        caFile = parsed.value("--ca")
        etagDirectory = parsed.value("--etag-dir")
        outputFile = parsed.value("--output")
        retries = try Self.retries(parsed.value("--retries"), spec: spec)
        timeout = try Self.timeout(parsed.value("--timeout"), spec: spec)
        jsonEvents = parsed.has("--json-events")
        verbose = parsed.has("--verbose")
        includeHead = parsed.has("--include")
    }

    /// The headers sent: `-H`'s, then `Authorization: Bearer` for `--token`.
    var requestHeaders: HTTPHeaders {
        var fields = headers
        if let token { fields["Authorization"] = "Bearer \(token)" }
        return fields
    }

    /// Whether the URL's host goes through `PinningTransport`'s own TLS: when it is pinned, or a
    /// private CA must be trusted (URLSession on Linux cannot add one).
    var verifiesInBand: Bool { !pins.isEmpty || caFile != nil }

    private static func retries(_ text: String?, spec: CommandSpec) throws(UsageError) -> Int {
        guard let text else { return 2 }
        guard let count = Int(text), (0...maxRetries).contains(count) else {
            throw spec.usageError("--retries takes a whole number from 0 to \(maxRetries), not '\(text)'.")
        }
        return count
    }

    private static func timeout(_ text: String?, spec: CommandSpec) throws(UsageError) -> Duration? {
        guard let text else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= maxTimeoutSeconds else {
            throw spec.usageError("--timeout takes seconds, more than 0 and at most \(Int(maxTimeoutSeconds)), not '\(text)'.")
        }
        return .milliseconds(Int64((seconds * 1_000).rounded(.up)))
    }
}
