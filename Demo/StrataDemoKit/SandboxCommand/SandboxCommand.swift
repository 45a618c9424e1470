import Foundation
import StrataPinning
import StrataSandbox

/// `strata-demo sandbox`: the tour's sandbox API in the foreground, until SIGINT or SIGTERM,
/// with everything a client needs printed: its URL, its CA (written to a PEM file), the pins,
/// the tokens, and a `get` command to paste.
struct SandboxCommand {
    static let spec = CommandSpec(
        name: "sandbox",
        usage: ["sandbox [--port <n>] [--write-ca <file>]"],
        overview: """
            Runs the tour's sandbox HTTPS API on 127.0.0.1 until interrupted (Ctrl-C or SIGTERM). Its CA \
            and certificate are generated at startup, so its pins change on every start; it prints \
            its URL, the CA file, the pins and the tokens, ready for 'strata-demo get'.
            """,
        arguments: ("", 0...0),
        options: [
            OptionSpec("--port", value: "<n>", help: "Listens on this port (1 to 65535). The default is one the system chooses."),
            OptionSpec(
                "--write-ca", value: "<file>",
                help: "Writes the CA certificate (PEM) to this file and leaves it there. The default is a temporary file removed on exit."),
        ],
        notes: [
            """
            ROUTES (all but POST /v1/token want 'Authorization: Bearer <access token>'):
              GET /v1/todos          the list, with an ETag (304 when If-None-Match matches)
              POST /v1/todos         adds {"title": "…"}; the list's ETag changes
              GET /v1/todos/<id>     one todo
              GET /v1/health         503 with Retry-After: 0 the first time, then 200
              GET /v1/export         a 1 MiB body that starts after 1.5 s
              POST /v1/token         grant_type=refresh_token&refresh_token=<refresh token>
            """,
            """
            EXIT STATUS:
              0 after an interrupt, 1 when the port is taken or the CA file cannot be written, 64 for a usage error.
            """,
        ],
        examples: ["strata-demo sandbox --port 8443 --write-ca sandbox-ca.pem"])

    let port: Int
    let caFile: String?
    let output: DemoOutput

    /// Checks the parsed arguments of `sandbox`.
    ///
    /// - Throws: ``UsageError`` for a malformed port.
    init(_ parsed: ParsedArguments, output: DemoOutput) throws(UsageError) {
        self.output = output
        caFile = parsed.value("--write-ca")
        guard let text = parsed.value("--port") else {
            port = 0
            return
        }
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw Self.spec.usageError("--port takes a number from 1 to 65535, not '\(text)'.")
        }
        self.port = port
    }

    /// Runs the sandbox until SIGINT or SIGTERM.
    func run() async -> ExitStatus {
        let signals = TerminationSignals()
        let sandbox: Sandbox
        do { sandbox = try Sandbox(port: port) } catch {
            output.error(error.description)
            return .failure
        }
        let written: CAFile
        do { written = try CAFile.write(sandbox.caCertificate.pem, to: caFile) } catch {
            output.error(error.description)
            return .failure
        }
        defer { written.removeIfTemporary() }
        do {
            try describe(sandbox, caPath: written.path)
        } catch {
            output.error("The sandbox's own certificate cannot be read back: \(error).")
            return .failure
        }
        let signal = await signals.next()
        sandbox.server.stop()
        output.errorLine(
            "Stopped by \(signal == SIGTERM ? "SIGTERM" : "SIGINT")" + (written.isTemporary ? "; removed \(written.path)." : "."))
        return .success
    }

    private func describe(_ sandbox: Sandbox, caPath: String) throws {
        let leaf = try Certificate(der: sandbox.serverCertificate.der)
        let authority = try Certificate(der: sandbox.caCertificate.der)
        let base = sandbox.baseURL.absoluteString
        let pinned = "--ca \(caPath) --pin \(leaf.spkiPin)"
        for line in [
            output.styled("Strata sandbox API: \(base)", .bold) + "  (also \(sandbox.server.url("/v1", host: "127.0.0.1")))",
            "CA certificate: \(caPath) (generated at startup, valid until \(ISO8601DateFormatter().string(from: authority.notAfter)))",
            "Pins, leaf first (for --pin):",
            "  \(leaf)",
            "  \(authority)",
            "Access token:  \(sandbox.validToken)",
            "Refresh token: \(sandbox.refreshToken)",
            "Try:",
            "  strata-demo get \(base)/todos \(pinned) --token \(sandbox.validToken) --etag-dir .strata-etags -v",
            "  strata-demo get \(base)/todos \(pinned) --token \(sandbox.validToken) -d '{\"title\":\"Try Strata\"}'",
            "  strata-demo pin localhost:\(sandbox.server.port) --ca \(caPath)",
            "Stop with Ctrl-C.",
        ] { output.line(line) }
    }
}
