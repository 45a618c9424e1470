#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

/// `strata-demo get <url>`: one request through the recommended stack, the body streamed to
/// standard output (or a file) as it arrives, decoded when compressed, and an exit status a
/// script can branch on.
struct GetCommand: Sendable {
    /// The largest `--data @file` body sent.
    static let maxBodyBytes = 64 << 20

    static let spec = CommandSpec(
        name: "get",
        usage: ["get <url> [options]"],
        overview: """
            Sends one request through the recommended stack (RetryTransport → ETagTransport → \
            PinningTransport → URLSessionTransport) and writes the response body to standard output \
            as it arrives, decoded when the server compressed it.
            """,
        arguments: ("<url>", 1...1),
        options: [
            OptionSpec(
                "--pin", value: "<sha256/…>", repeatable: true,
                help: "Pins the URL's host to this public key; repeat for a backup pin. A mismatch prints the chain's pins."),
            OptionSpec(
                "--ca", value: "<file>",
                help: "Trusts only the CA certificates in this PEM or DER file (a private CA, such as the sandbox's)."),
            OptionSpec("-H", "--header", value: "<'Name: value'>", repeatable: true, help: "Adds a request header; repeatable."),
            OptionSpec("-X", "--request", value: "<method>", help: "Uses this method. The default is GET, or POST with --data."),
            OptionSpec("-d", "--data", value: "<text|@file>", help: "Sends this body, or the bytes of the file after '@'."),
            OptionSpec(
                "--token", value: "<token|@file|-|env>",
                help: "Sends 'Authorization: Bearer <token>', the token read from a file with @file, from standard input "
                    + "with -, or from the \(TokenSource.environmentVariable) environment variable with env. Prefer those: "
                    + "a token written here shows in the process list and the shell history. It never appears in any output."),
            OptionSpec(
                "--etag-dir", value: "<dir>",
                help: "Keeps responses in a FileETagStore there; the next run revalidates (304) instead of downloading."),
            OptionSpec("--retries", value: "<n>", help: "Retries transient failures up to n times (0 to 10). The default is 2."),
            OptionSpec(
                "--timeout", value: "<seconds>",
                help: "Gives up when the response has not completed within this many seconds, "
                    + "retries and the body included (with --events: stops tailing after that long)."),
            OptionSpec(
                "-o", "--output", value: "<file>",
                help: "Writes the body to this file as it downloads (renamed into place once complete); a progress "
                    + "line (received, total when known, rate) shows on a terminal while it takes a moment. "
                    + "'-o -' writes it to standard output exactly as it came, even on a terminal."),
            OptionSpec(
                "--events",
                help: "Reads the body as server-sent events and prints each as one JSON line, every control character "
                    + "as a JSON escape (\\u001b, \\u007f, \\u009b); reconnects with Last-Event-ID when the "
                    + "connection drops, as a browser's EventSource does (Ctrl-C ends it)."),
            OptionSpec("--raw", help: "Keeps a compressed body as the server coded it (gzip, br, ...) instead of decoding it."),
            OptionSpec("--json-events", help: "Writes the layers' events to standard error as JSON lines."),
            OptionSpec("-v", "--verbose", help: "Writes the request and response heads and the layers' events to standard error."),
            OptionSpec("-i", "--include", help: "Writes the response's status line and headers before the body."),
        ],
        notes: [
            """
            ON A TERMINAL:
              A body shown on a terminal has its control characters written as visible escapes
              (\\u{1B}, \\u{9B}; line feeds, tabs and CRLF line ends are kept, a lone CR is escaped),
              and a body with a NUL byte in its first \(TerminalBody.binaryCheckBytes) bytes is not shown from
              the NUL on (text before it in an earlier read was shown): use '-o -' or '-o <file>'. Through a pipe or with -o, the body is written
              byte for byte. Headers, events and error messages from the server are always escaped.
            """,
            """
            EXIT STATUS:
              0 for a response below 400, 22 for an HTTP error status (400 and above, as curl --fail;
              the body is not written), 1 when no response arrived (connection, TLS, pin check,
              timeout), a file could not be used or a binary body was not shown on a terminal,
              64 for a usage error.
            """,
        ],
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

    /// Sends the request, its token read, and writes what comes back as it arrives.
    private func send() async -> ExitStatus {
        let request: HTTPRequest
        let transport: any Transport
        do {
            let foundation = try makeRequest()
            if options.verbose { writeHead(of: foundation) }
            request = try HTTPRequest(foundation)
            transport = try GetStack.make(options, trustRoots: try trustRoots(), store: try etagStore())
        } catch let failure as GetFailure {
            output.error(failure.description)
            return .failure
        } catch {
            output.error(error.localizedDescription)
            return .failure
        }
        do {
            return try await exchange(request, through: transport)
        } catch let failure as GetFailure {
            output.error(failure.description)
            return .failure
        } catch {
            // Errors from below quote the server (a status line, a certificate name, a proxy's reason).
            output.error(GetFailure.transport(TerminalText.escaping(scrubbed("\(error)"), keepingLineBreaks: true)).description)
            return .failure
        }
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

    /// Streams the request through the stack, observed when `-v` or `--json-events` asks (and,
    /// with `--etag-dir`, for the store's answer), within `--timeout`, the body written as it comes.
    private func exchange(_ request: HTTPRequest, through transport: any Transport) async throws -> ExitStatus {
        let printer =
            options.jsonEvents || options.verbose
            ? EventPrinter(format: options.jsonEvents ? .jsonLines : .text, output: output, secretsFrom: options.requestHeaders)
            : nil
        let revalidated = LockedValue(false)
        let printed = printer?.observing(transport) ?? transport
        let observed =
            options.etagDirectory == nil
            ? printed
            : ObservingTransport(inner: printed) { observed in
                if case .revalidated? = observed.event as? ETagEvent { revalidated.withLock { $0 = true } }
            }
        let downloadProgress = DownloadProgress()
        let progress =
            options.outputFile != nil && output.terminal.errorIsTerminal
            ? Task { [output, options] in
                await ProgressLine(
                    label: "\(options.method) \(Redaction().redact(options.url))", output: output,
                    progress: downloadProgress
                ).run()
            }
            : nil
        // The line is erased before anything else is written, whether the request succeeded or not.
        defer { progress?.cancel() }
        if options.events {
            return try await Self.within(options.timeout) { try await printEvents(request, through: observed) }
        }
        return try await Self.within(options.timeout) {
            try await observed.stream(request) { head, body in
                let status = try await receive(
                    head, body, revalidated: revalidated.withLock { $0 }, progress: downloadProgress,
                    stopping: progress)
                return status
            }
        }
    }

    /// Tails `request` as server-sent events through the stack, one JSON line each on standard
    /// output, reconnecting as ``EventSource`` does; an error status is reported as for a body.
    private func printEvents(_ request: HTTPRequest, through transport: any Transport) async throws -> ExitStatus {
        do {
            for try await event in EventSource(transport: transport, request: request) { output.write(EventLine.json(event)) }
            return .success
        } catch ServerSentEventError.unexpectedStatus(let response) {
            output.error(
                "\(options.method) \(Redaction().redact(options.url)) answered \(ResponseHead(response.head).status)"
                    + scrubbed(Self.snippet(of: response.body)) + ".")
            return .httpError
        }
    }

    /// Runs `body`, or throws ``GetFailure/timedOut(_:)`` when `timeout` passes first (cancelling it).
    private static func within<T: Sendable>(
        _ timeout: Duration?,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let timeout else { return try await body() }
        return try await withThrowingTaskGroup(of: T.self) { group in
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

    // MARK: - After the head

    /// Writes what the response brings: its head for `-v`, then its body as it arrives, to
    /// standard output or the `-o` file; an error status is reported instead of its body.
    private func receive(
        _ head: HTTPResponseHead, _ body: HTTPBody, revalidated: Bool, progress: DownloadProgress,
        stopping progressLine: Task<Void, Never>?
    ) async throws -> ExitStatus {
        let shown = ResponseHead(head)
        if options.verbose {
            for line in shown.lines { output.errorLine(output.styledError("< ", .dim) + line) }
            output.errorLine(output.styledError("<", .dim))
        }
        if revalidated {
            output.errorLine(
                output.styledError(
                    "304 Not Modified: \(body.length ?? 0) bytes served from the ETag store in "
                        + "\(options.etagDirectory ?? "memory"); the body was not downloaded again.", .dim))
        }
        guard head.statusCode < 400 else {
            let start = try await Self.prefix(of: body, upTo: Self.maxSnippetBytes)
            await Self.stop(progressLine)
            output.error(
                "\(options.method) \(Redaction().redact(options.url)) answered \(shown.status)"
                    + scrubbed(Self.snippet(of: start)) + ".")
            return .httpError
        }
        let headText = options.includeHead ? Data((shown.lines.joined(separator: "\n") + "\n\n").utf8) : nil
        guard let path = options.outputFile else {
            if let headText { output.write(headText) }
            // A pipe or a file gets the body byte for byte, as curl writes it; only a person reads a terminal.
            guard output.terminal.outputIsTerminal, !options.bodyAsIs else {
                for try await chunk in body { output.write(Data(chunk)) }
                return .success
            }
            try await show(body)
            return .success
        }
        progress.expect(head.headers["Content-Length"].flatMap { Int64($0) })
        let saved = try await download(body, to: path, after: headText, progress: progress)
        await Self.stop(progressLine)
        if output.terminal.errorIsTerminal { output.errorLine("Saved \(saved) bytes to \(path).") }
        return .success
    }

    /// Writes the body to the terminal on standard output, escaped as it arrives (``TerminalBody``).
    ///
    /// - Throws: ``GetFailure/binaryBody`` when the body is binary; what came before was text.
    private func show(_ body: HTTPBody) async throws {
        var shown = TerminalBody()
        for try await chunk in body {
            guard let text = shown.text(for: chunk) else { throw GetFailure.binaryBody }
            if !text.isEmpty { output.write(Data(text.utf8)) }
        }
        let end = shown.end()
        if !end.isEmpty { output.write(Data(end.utf8)) }
    }

    /// Writes `headText` and the body to a temporary file beside `path` as it arrives, off
    /// Swift's cooperative threads, and renames it onto `path` once complete: `path` never holds
    /// a partial download. Returns the bytes written.
    private func download(_ body: HTTPBody, to path: String, after headText: Data?, progress: DownloadProgress) async throws -> Int64 {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).download")
            .path
        do {
            let file = try FileChunkWriter(creating: temporary, for: path)
            var written: Int64 = 0
            if let headText {
                try await file.write(ArraySlice(headText))
                written += Int64(headText.count)
            }
            for try await chunk in body {
                try await file.write(chunk)
                written += Int64(chunk.count)
                progress.add(chunk.count)
            }
            try await file.finish()
            guard rename(temporary, path) == 0 else {
                throw GetFailure.output(path: path, reason: String(cString: strerror(errno)))
            }
            return written
        } catch let error as NetworkError {
            unlink(temporary)
            guard case .cannotWriteFile(_, let reason) = error else { throw error }
            throw GetFailure.output(path: path, reason: reason)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Cancels the progress line and waits until it was erased.
    private static func stop(_ progressLine: Task<Void, Never>?) async {
        progressLine?.cancel()
        await progressLine?.value
    }

    /// The most bytes of an error response's body read for its one-line quote.
    static let maxSnippetBytes = 512

    /// The body's first bytes, at most `maxBytes`; the rest is left unread.
    private static func prefix(of body: HTTPBody, upTo maxBytes: Int) async throws -> Data {
        var bytes = Data()
        for try await chunk in body {
            bytes.append(contentsOf: chunk.prefix(maxBytes - bytes.count))
            if bytes.count >= maxBytes { break }
        }
        return bytes
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
        guard !body.isEmpty, body.count < maxSnippetBytes, let text = String(data: body, encoding: .utf8) else { return "" }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "" : ": " + TerminalText.escaping(line)
    }

    /// `text` without the values of the request's secret headers (the token).
    private func scrubbed(_ text: String) -> String {
        Redaction().scrub(text, secretsFrom: options.requestHeaders)
    }
}
