import Foundation
@testable import StrataPinning
import Testing

/// The "Pinning a host" article's openssl recipe for a pin, run as written against the fixtures.
@Suite("The pinning article's openssl pin recipe")
struct PinRecipeTests {
    static let article = URL(fileURLWithPath: #filePath) // Tests/StrataPinningTests/Certificate/ThisFile.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/StrataPinning/StrataPinning.docc/PinningAHost.md")

    /// The `openssl` command-line tool; the test needs it (`.ci/run` installs it, so CI never skips).
    static let openssl = ["/usr/bin/openssl", "/bin/openssl", "/usr/local/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "prints sha256/<base64>, exactly Certificate.spkiPin, for the leaf and the CA",
        .enabled(if: openssl != nil, "the openssl command-line tool is not installed (apt-get install openssl)"),
        arguments: ["leaf-ec", "ca"])
    func recipePrintsThePin(fixture: String) async throws {
        let lines = try String(contentsOf: Self.article, encoding: .utf8).split(separator: "\n")
        let recipe = try #require(lines.first { $0.hasPrefix("printf 'sha256/%s") }, "the pinning article has no openssl pin recipe")
        let path = Fixtures.directory.appendingPathComponent("\(fixture).pem").path
        let command = String(recipe).replacingOccurrences(of: "server.pem", with: "'\(path)'")
        let output = try await Self.run(command)
        #expect(output == "\(try Fixtures.certificate(fixture).spkiPin)\n")
        #expect(try PublicKeyPinningEvaluator(pins: [output.trimmingCharacters(in: .newlines)]).pins.count == 1)
    }

    /// Runs `command` with /bin/sh and returns its standard output, waiting without blocking a
    /// thread of the cooperative pool.
    private static func run(_ command: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
