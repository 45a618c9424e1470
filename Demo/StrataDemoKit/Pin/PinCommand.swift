import Foundation
import StrataPinning

/// `strata-demo pin`: the pins of a server's verified chain, or of certificate files, with
/// subject and expiry.
struct PinCommand {
    /// What to read certificates from.
    enum Source: Equatable, Sendable {
        /// A server, through one TLS connection; `caFile` replaces the system CAs.
        case host(PinTarget, caFile: String?)
        /// PEM or DER files.
        case files([String])
    }

    static let spec = CommandSpec(
        name: "pin",
        usage: ["pin <host>[:port] [--ca <file>] [--json]", "pin --cert <file>... [--json]"],
        overview: """
            Prints the public-key pins of a server's verified chain, or of certificates in PEM or \
            DER files (bundles too), leaf first, with subject and expiry, ready for \
            PublicKeyPinningEvaluator(pins:). Warns when a certificate expires within \
            \(CertificateReport.expiryWarningDays) days.
            """,
        arguments: ("<host>[:port]", 0...1_000),
        options: [
            OptionSpec("--cert", help: "Reads the certificates from the files given instead of connecting to a host."),
            OptionSpec(
                "--ca", value: "<file>",
                help: "Trusts only the CA certificates in this PEM or DER file instead of the system CAs (with a host)."),
            OptionSpec("--json", help: "Writes one JSON document instead of lines, for scripts."),
        ],
        notes: [
            """
            A host is reached through PinningTransport: OpenSSL verifies the chain and the host name as \
            for a pinned request, and the connection closes before any request is sent. The port \
            defaults to 443.
            """,
            """
            EXIT STATUS:
              0 when the pins were printed (even with expiry warnings), 1 when the connection, the chain
              or a file failed, 64 for a usage error.
            """,
        ],
        examples: [
            "strata-demo pin example.com",
            "strata-demo pin localhost:8443 --ca ca.pem",
            "strata-demo pin --cert chain.pem",
            "strata-demo pin --cert leaf.der ca.pem --json",
        ])

    let source: Source
    let json: Bool
    let output: DemoOutput
    /// The moment expiry is measured from.
    var now = Date()

    /// Checks the parsed arguments of `pin`.
    ///
    /// - Throws: ``UsageError`` for a missing or extra argument, a malformed target, or `--ca`
    ///   with `--cert`.
    init(_ parsed: ParsedArguments, output: DemoOutput) throws(UsageError) {
        let spec = Self.spec
        json = parsed.has("--json")
        self.output = output
        if parsed.has("--cert") {
            guard !parsed.positionals.isEmpty else { throw spec.usageError("Missing expected argument '<file>...'.") }
            guard !parsed.has("--ca") else { throw spec.usageError("--ca applies to a host; --cert reads files only.") }
            source = .files(parsed.positionals)
            return
        }
        guard let target = parsed.positionals.first else { throw spec.usageError("Missing expected argument '<host>[:port]'.") }
        guard parsed.positionals.count == 1 else {
            throw spec.usageError("Unexpected argument '\(parsed.positionals[1])'; give one host, or --cert for files.")
        }
        source = .host(try PinTarget(parsing: target, spec: spec), caFile: parsed.value("--ca"))
    }

    /// Reads the certificates and prints them.
    func run() async -> ExitStatus {
        let report: CertificateReport
        switch source {
        case .host(let target, let caFile):
            do {
                let chain = try await PinProbe(target: target, caFile: caFile).verifiedChain()
                report = CertificateReport(entries: chain.map { .init(certificate: $0, file: nil) }, isChain: true, now: now)
            } catch {
                // A trust failure quotes the server's certificate names.
                output.error(TerminalText.escaping(error.description, keepingLineBreaks: true))
                return .failure
            }
            if !json { output.errorLine("Verified chain of \(target), leaf first; paste the pins into PublicKeyPinningEvaluator(pins:):") }
        case .files(let paths):
            var entries: [CertificateReport.Entry] = []
            for path in paths {
                do { entries += try CertificateFile.read(path).map { .init(certificate: $0, file: path) } } catch {
                    output.error(error.description)
                    return .failure
                }
            }
            let ordered = ChainOrder.leafFirst(entries.map(\.certificate))
            let files = Dictionary(entries.map { ($0.certificate, $0.file) }, uniquingKeysWith: { first, _ in first })
            report = CertificateReport(
                entries: ordered.certificates.map { .init(certificate: $0, file: files[$0] ?? nil) },
                isChain: ordered.isChain, now: now)
            if !json && ordered.certificates.count > 1 {
                output.errorLine(
                    ordered.isChain
                        ? "These certificates form one chain, shown leaf first:"
                        : "Certificates in file order (they do not form one chain):")
            }
        }
        if json {
            output.write(report.json() + Data("\n".utf8))
        } else {
            for line in report.lines(output: output) { output.line(line) }
        }
        for warning in report.warnings { output.warning(warning) }
        return .success
    }
}
