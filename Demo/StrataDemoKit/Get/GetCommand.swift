#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

/// `strata-demo get <url>`: one request through the recommended stack, the body on standard
/// output, and an exit status a script can branch on.
struct GetCommand {
    /// The largest `--data @file` body sent.
    static let maxBodyBytes = 64 << 20

    static let spec = CommandSpec(
        name: "get",
        usage: ["get <url> [options]"],
        overview: """
            Sends one request through the recommended stack (RetryTransport → ETagTransport → \
            PinningTransport → URLSessionTransport) and writes the response body to standard output.
            """,
        arguments: ("<url>", 1...1),
        options: [
            OptionSpec("--pin", value: "<sha256/…>", repeatable: true,
                       help: "Pins the URL's host to this public key; repeat for a backup pin. A mismatch prints the chain's pins."),
            OptionSpec("--ca", value: "<file>",
                       help: "Trusts only the CA certificates in this PEM or DER file (a private CA, such as the sandbox's)."),
            OptionSpec("-H", "--header", value: "<'Name: value'>", repeatable: true, help: "Adds a request header; repeatable."),
            OptionSpec("-X", "--request", value: "<method>", help: "Uses this method. The default is GET, or POST with --data."),
            OptionSpec("-d", "--data", value: "<text|@file>", help: "Sends this body, or the bytes of the file after '@'."),
            OptionSpec("--token", value: "<token|@file|-|env>",
                       help: "Sends 'Authorization: Bearer <token>', the token read from a file with @file, from standard input "
                           + "with -, or from the \(TokenSource.environmentVariable) environment variable with env. Prefer those: "
                           + "a token written here shows in the process list and the shell history. It never appears in any output."),
            OptionSpec("--etag-dir", value: "<dir>",
                       help: "Keeps responses in a FileETagStore there; the next run revalidates (304) instead of downloading."),
            OptionSpec("--retries", value: "<n>", help: "Retries transient failures up to n times (0 to 10). The default is 2."),
            OptionSpec("--timeout", value: "<seconds>", help: "Gives up when no response arrived within this many seconds, retries included."),
            OptionSpec("-o", "--output", value: "<file>",
                       help: "Writes the body to this file; a progress line shows on a terminal while it takes a moment."),
            OptionSpec("--json-events", help: "Writes the layers' events to standard error as JSON lines."),
            OptionSpec("-v", "--verbose", help: "Writes the request and response heads and the layers' events to standard error."),
            OptionSpec("-i", "--include", help: "Writes the response's status line and headers before the body."),
        ],
        notes: ["""
            EXIT STATUS:
              0 for a response below 400, 22 for an HTTP error status (400 and above, as curl --fail;
              the body is not written), 1 when no response arrived (connection, TLS, pin check,
              timeout) or a file could not be used, 64 for a usage error.
            """],
        examples: [
            "strata-demo get https://example.com/",
            "strata-demo get https://localhost:8443/v1/todos --ca ca.pem --pin sha256/… --token @token.txt --etag-dir .etags",
            "STRATA_TOKEN=… strata-demo get https://localhost:8443/v1/todos --ca ca.pem --token env -X POST -d '{\"title\":\"Ship it\"}' -H 'Content-Type: application/json'",
        ])

    let options: GetOptions
    let output: DemoOutput
    /// The environment `--token env` reads.
    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Reads standard input for `--token -`, up to the given number of bytes.
    var standardInput: @Sendable (Int) -> Data = { (try? FileHandle.standardInput.read(upToCount: $0)) ?? Data() }

    /// Reads the token, sends the request and writes what came back.
    func run() async -> ExitStatus {
        guard let source = options.token, !source.isLiteral else { return await send() }
        var withToken = options
        do {
            // Read at run time, not while parsing: the command line is checked without any I/O.
            withToken.token = .literal(try source.read(environment: environment, standardInput: standardInput))
        } catch {
            output.error(error.description)
            return .failure
        }
        return await GetCommand(options: withToken, output: output).send()
    }

    /// Sends the request, its token read, and writes what came back.
    private func send() async -> ExitStatus {
        let request: URLRequest
        let transport: any Transport
        do {
            request = try makeRequest()
            transport = try GetStack.make(options, trustRoots: try trustRoots(), store: try etagStore())
        } catch {
            output.error(error.description)
            return .failure
        }
        if options.verbose { writeHead(of: request) }
        let response: HTTPResponse
        do {
            response = try await exchange(request, through: transport)
        } catch let failure as GetFailure {
            output.error(failure.description)
            return .failure
        } catch {
            // Errors from below quote the server (a status line, a certificate name, a proxy's reason).
            output.error(GetFailure.transport(TerminalText.escaping(scrubbed("\(error)"), keepingLineBreaks: true)).description)
            return .failure
        }
        return deliver(response)
    }

    // MARK: - Before sending

    private func makeRequest() throws(GetFailure) -> URLRequest {
        var request = URLRequest(url: options.url)
        request.httpMethod = options.method.rawValue
        for field in options.requestHeaders { request.addValue(field.value, forHTTPHeaderField: field.name) }
        switch options.body {
        case .text(let text): request.httpBody = Data(text.utf8)
        case .file(let path):
            do { request.httpBody = try InputFile.read(path, limit: Self.maxBodyBytes) } catch {
                throw .input(error.named("--data"))
            }
        case nil: break
        }
        return request
    }

    private func trustRoots() throws(GetFailure) -> TrustRoots {
        guard let caFile = options.caFile else { return .system }
        do { return .certificates(try CertificateFile.read(caFile)) } catch {
            throw .input(error.named("--ca"))
        }
    }

    private func etagStore() throws(GetFailure) -> (any ETagStoreProtocol)? {
        guard let directory = options.etagDirectory else { return nil }
        do {
            return try FileETagStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
        } catch let error as FileETagStoreError {
            throw .etagDirectory(error)
        } catch {
            throw .etagDirectory(.cannotUseDirectory(path: directory, reason: "\(error)"))
        }
    }

    // MARK: - Sending

    /// Sends through the stack, observed when `-v` or `--json-events` asks, within `--timeout`.
    private func exchange(_ request: URLRequest, through transport: any Transport) async throws -> HTTPResponse {
        let printer = options.jsonEvents || options.verbose
            ? EventPrinter(format: options.jsonEvents ? .jsonLines : .text, output: output, secretsFrom: options.requestHeaders)
            : nil
        let observed = printer?.observing(transport) ?? transport
        let send: @Sendable () async throws -> HTTPResponse = { try await observed.send(request) }
        let progress = options.outputFile != nil && output.terminal.errorIsTerminal
            ? Task { await ProgressLine(label: "\(options.method) \(Redaction().redact(options.url))", output: output).run() }
            : nil
        // The line is erased before anything else is written, whether the request succeeded or not.
        let result: Result<HTTPResponse, any Error>
        do { result = .success(try await Self.within(options.timeout, send)) } catch { result = .failure(error) }
        progress?.cancel()
        await progress?.value
        return try result.get()
    }

    /// Runs `body`, or throws ``GetFailure/timedOut(_:)`` when `timeout` passes first (cancelling it).
    private static func within(_ timeout: Duration?,
                               _ body: @escaping @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard let timeout else { return try await body() }
        return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask(operation: body)
            group.addTask {
                try await Task.sleep(for: timeout)
                throw GetFailure.timedOut(timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw GetFailure.timedOut(timeout) }
            return first
        }
    }

    // MARK: - After the response

    private func deliver(_ response: HTTPResponse) -> ExitStatus {
        let head = ResponseHead(response)
        if options.verbose {
            for line in head.lines { output.errorLine(output.styledError("< ", .dim) + line) }
            output.errorLine(output.styledError("<", .dim))
        }
        if response.source == .revalidated {
            output.errorLine(output.styledError("304 Not Modified: \(response.body.count) bytes served from the ETag store in "
                + "\(options.etagDirectory ?? "memory"); the body was not downloaded again.", .dim))
        }
        guard response.statusCode < 400 else {
            output.error("\(options.method) \(Redaction().redact(options.url)) answered \(head.status)"
                + scrubbed(Self.snippet(of: response.body)) + ".")
            return .httpError
        }
        var bytes = options.includeHead ? Data((head.lines.joined(separator: "\n") + "\n\n").utf8) : Data()
        bytes.append(response.body)
        guard let path = options.outputFile else {
            output.write(bytes)
            return .success
        }
        do {
            try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            output.error(GetFailure.output(path: path, reason: Self.reason(error)).description)
            return .failure
        }
        if output.terminal.errorIsTerminal { output.errorLine("Saved \(bytes.count) bytes to \(path).") }
        return .success
    }

    /// Writes the request head to standard error for `-v`, credentials redacted.
    private func writeHead(of request: URLRequest) {
        let marker = output.styledError("> ", .dim)
        output.errorLine(marker + "\(options.method) \(Redaction().redact(options.url))")
        for field in Redaction().redact(options.requestHeaders) { output.errorLine(marker + "\(field.name): \(field.value)") }
        if let body = request.httpBody { output.errorLine(marker + "(\(body.count) bytes of body)") }
        output.errorLine(output.styledError(">", .dim))
    }

    /// `: <the body's first line>` for a short text body, so an API's error message shows.
    private static func snippet(of body: Data) -> String {
        guard !body.isEmpty, body.count <= 512, let text = String(data: body, encoding: .utf8) else { return "" }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "" : ": " + TerminalText.escaping(line)
    }

    /// `text` without the values of the request's secret headers (the token).
    private func scrubbed(_ text: String) -> String {
        Redaction().scrub(text, secretsFrom: options.requestHeaders)
    }

    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(code)))
        }
        return (error as NSError).localizedDescription
    }
}
