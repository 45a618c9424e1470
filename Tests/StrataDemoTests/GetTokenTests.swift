import Foundation
@testable import StrataDemoKit
import Testing

@Suite("get --token reads the token from the command line, a file, standard input or STRATA_TOKEN", .timeLimit(.minutes(2)))
struct GetTokenTests {
    /// Runs `get /v1/todos` against the sandbox (which answers 401 without its token) with `token`'s options.
    private func run(
        _ server: RunningSandbox, token: [String], environment: [String: String] = [:],
        standardInput: Data? = nil, directory: URL? = nil
    ) async throws -> DemoProcess.Result {
        try await DemoProcess.run(
            ["get", server.url("/v1/todos"), "--ca", server.caFile] + token,
            environment: environment, directory: directory, standardInput: standardInput)
    }

    @Test("the literal form still works, and @file, - and env send the same token (a trailing newline ignored)")
    func everySource() async throws {
        let server = try RunningSandbox()
        let token = server.sandbox.validToken
        let directory = try DemoProcess.temporaryDirectory()
        try Data("\(token)\n".utf8).write(to: directory.appendingPathComponent("token.txt"))
        let runs = [
            try await run(server, token: ["--token", token]),
            try await run(server, token: ["--token", "@token.txt"], directory: directory),
            try await run(server, token: ["--token", "-"], standardInput: Data("\(token)\n".utf8)),
            try await run(server, token: ["--token", "env"], environment: ["STRATA_TOKEN": token]),
        ]
        for run in runs {
            #expect(run.status == 0, "stderr: \(run.standardError)")
            #expect(run.standardOutput.contains("Write the tour"))
            #expect(!run.standardError.contains(token))
        }
    }

    @Test("STRATA_TOKEN is read only with --token env: without it no token is sent")
    func environmentOnlyWhenAsked() async throws {
        let server = try RunningSandbox()
        let run = try await run(server, token: [], environment: ["STRATA_TOKEN": server.sandbox.validToken])
        #expect(run.status == 22, "stderr: \(run.standardError)")
    }

    @Test(
        "a missing or unusable token source exits 1 naming the source, never what it held",
        arguments: [
            (["--token", "env"], [String: String](), "", "STRATA_TOKEN"),
            (["--token", "@missing.txt"], [:], "", "Cannot read 'missing.txt' (--token): no such file."),
            (["--token", "-"], [:], "  \n", "--token - (standard input) holds no token."),
            (["--token", "-"], [:], "s3cr3t half-pasted\n", "contains spaces or control characters"),
            (["--token", "env"], ["STRATA_TOKEN": "s3cr3t\u{1B}[2J"], "", "contains spaces or control characters"),
        ])
    func unusableSources(options: [String], environment: [String: String], input: String, message: String) async throws {
        let server = try RunningSandbox()
        let run = try await run(server, token: options, environment: environment, standardInput: Data(input.utf8))
        #expect(run.status == 1)
        #expect(run.standardError.hasPrefix("Error: "), "\(run.standardError)")
        #expect(run.standardError.contains(message), "\(run.standardError)")
        #expect(!run.standardError.contains("s3cr3t"))
    }

    @Test("--help says where the token can come from and why")
    func help() async throws {
        let help = GetCommand.spec.helpText
        #expect(help.contains("--token <token|@file|-|env>"))
        #expect(help.contains("STRATA_TOKEN"))
        #expect(help.contains("process list"))
    }
}
