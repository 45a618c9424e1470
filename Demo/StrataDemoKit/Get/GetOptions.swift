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
    /// Where the bearer token comes from; ``GetCommand`` reads it (``TokenSource/read(environment:standardInput:)``)
    /// before sending, leaving ``TokenSource/literal(_:)``.
    var token: TokenSource?
    var etagDirectory: String?
    var retries: Int
    var timeout: Duration?
    /// The `-o` file; `nil` for standard output, `-o -` included.
    var outputFile: String?
    /// `-o -`: the body goes to standard output exactly as it came even on a terminal, where it
    /// is otherwise escaped, or refused when binary (``TerminalBody``).
    var bodyAsIs: Bool
    var jsonEvents: Bool
    var verbose: Bool
    var includeHead: Bool
    /// Keep a compressed body as the server coded it (`--raw`) rather than decoded.
    var raw: Bool
    /// Read the body as server-sent events, one JSON line each, reconnecting as a browser does (`--events`).
    var events: Bool

    /// Checks the parsed arguments of `get`.
    ///
    /// - Throws: ``UsageError`` naming the first malformed value: the URL, a pin, a header, the
    ///   method, the token, a number.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        let spec = GetCommand.spec
        let text = parsed.positionals[0]
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            // Shown without what may be credentials: the URL did not parse as meant.
            let shown = Redaction().scrub(Redaction.redactingUserinfo(in: text, .rejected))
            throw spec.usageError("'\(shown)' is not an http or https URL; write it as https://host[:port]/path.")
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
                // Never echoed: 'Authorization Bearer <token>' with its colon forgotten is a credential.
                throw spec.usageError("-H '\(Self.shown(malformed: field))' has no ':'; write a header as 'Name: value'.")
            }
            let name = String(field[..<colon])
            let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            do { try HTTPHeaders.validate(name: name, value: value) } catch { throw spec.usageError(error.description) }
            headers.add(name: name, value: value)
        }
        token = parsed.value("--token").map(TokenSource.init)
        switch token {
        case .literal(let literal)?:
            // The message must not repeat the token: it is a secret, and may be half-pasted.
            guard TokenSource.isWellFormed(literal) else {
                throw spec.usageError("The --token value is empty or contains spaces or control characters; pass the bare token.")
            }
        case .file(let path)? where path.isEmpty:
            throw spec.usageError("Write --token @<file> with a file name after '@'.")
        default: break
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
        // `-o -` names standard output, as curl's `--output -` does; a file named '-' is `-o ./-`.
        let output = parsed.value("--output")
        outputFile = output == "-" ? nil : output
        bodyAsIs = output == "-"
        retries = try Self.retries(parsed.value("--retries"), spec: spec)
        timeout = try Self.timeout(parsed.value("--timeout"), spec: spec)
        jsonEvents = parsed.has("--json-events")
        verbose = parsed.has("--verbose")
        includeHead = parsed.has("--include")
        raw = parsed.has("--raw")
        events = parsed.has("--events")
        if events, let conflict = ["--output", "--raw", "--include"].first(where: parsed.has) {
            throw spec.usageError("--events prints each event as a line; it cannot be combined with \(conflict).")
        }
        guard !raw || scheme == "https" else {
            throw spec.usageError(
                "--raw needs an https URL: over http the request goes through URLSession, whose libcurl "
                    + "decodes every compressed body it receives.")
        }
    }

    /// The headers sent: `-H`'s, then `Authorization: Bearer` for `--token` once it was read,
    /// and for `--raw` the `Accept-Encoding` `PinningTransport` would offer, set here so that it
    /// hands the coded bytes over untouched (unless `-H` set one already).
    var requestHeaders: HTTPHeaders {
        var fields = headers
        if case .literal(let token)? = token { fields["Authorization"] = "Bearer \(token)" }
        if raw, !fields.contains("Accept-Encoding") {
            fields["Accept-Encoding"] = ContentCoding.supported.map(\.rawValue).joined(separator: ", ")
        }
        return fields
    }

    /// A malformed `-H` as an error shows it: its first word when that looks like a header name
    /// followed by more (`Authorization <redacted>`), else only the placeholder, since a single
    /// word may be the secret itself.
    private static func shown(malformed field: String) -> String {
        let words = field.split(separator: " ", maxSplits: 1)
        guard words.count == 2, (try? HTTPHeaders.validate(name: String(words[0]), value: "")) != nil else {
            return Redaction.placeholder
        }
        return "\(words[0]) \(Redaction.placeholder)"
    }

    /// Whether the URL's host goes through `PinningTransport`'s own TLS: when it is pinned, a
    /// private CA must be trusted (URLSession on Linux cannot add one), or `--raw` asks for coded
    /// bytes (URLSession's libcurl always decodes them).
    var verifiesInBand: Bool { !pins.isEmpty || caFile != nil || raw }

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
