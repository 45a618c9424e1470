import Foundation
import Strata

/// Where `get --token` takes the bearer token from. A token written on the command line is
/// visible to every user of the machine (`/proc/<pid>/cmdline`, `ps`) and stays in the shell's
/// history, so the token can also come from a file, standard input or an environment variable.
enum TokenSource: Equatable, Sendable {
    /// The token itself, as given on the command line.
    case literal(String)
    /// `--token @<file>`: the file's contents.
    case file(String)
    /// `--token -`: standard input.
    case standardInput
    /// `--token env`: the ``environmentVariable`` variable. Read only when asked, so a token
    /// kept in the environment for one API is never sent to another URL by accident.
    case environment

    /// The variable `--token env` reads.
    static let environmentVariable = "STRATA_TOKEN"
    /// The most bytes read from a token file or standard input: a bearer token (a JWT
    /// included) is a few kilobytes at most, and a larger file is not a token.
    static let maxBytes = 64 << 10

    /// Reads `--token`'s value: `@<file>`, `-`, `env`, or the token itself.
    init(_ argument: String) {
        switch argument {
        case "-": self = .standardInput
        case "env": self = .environment
        case let path where path.hasPrefix("@"): self = .file(String(path.dropFirst()))
        default: self = .literal(argument)
        }
    }

    /// Whether the token was given on the command line (and so has been checked already).
    var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    /// How the source is named in a message, never with the token itself.
    var name: String {
        switch self {
        case .literal: "--token"
        case .file(let path): "--token @\(path)"
        case .standardInput: "--token - (standard input)"
        case .environment: "--token env (\(Self.environmentVariable))"
        }
    }

    /// The token, surrounding whitespace and line breaks removed (a file or `echo` ends with a
    /// newline).
    ///
    /// - Parameters:
    ///   - environment: The process's environment.
    ///   - standardInput: Reads standard input, up to the given number of bytes.
    /// - Throws: ``GetFailure/token(_:)`` or ``GetFailure/input(_:)`` saying what to fix,
    ///   never quoting what was read.
    func read(environment: [String: String], standardInput: (Int) -> Data) throws(GetFailure) -> String {
        let raw: String
        switch self {
        case .literal(let token):
            raw = token
        case .file(let path):
            let data: Data
            do { data = try InputFile.read(path, limit: Self.maxBytes) } catch { throw .input(error.named("--token")) }
            raw = String(decoding: data, as: UTF8.self)
        case .standardInput:
            let data = standardInput(Self.maxBytes + 1)
            guard data.count <= Self.maxBytes else {
                throw .token("\(name) is larger than \(Self.maxBytes) bytes; pass the token alone.")
            }
            raw = String(decoding: data, as: UTF8.self)
        case .environment:
            raw = environment[Self.environmentVariable] ?? ""
        }
        let token = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw .token(
                self == .environment
                    ? "\(name): set \(Self.environmentVariable) to the token, as: export \(Self.environmentVariable)=…"
                    : "\(name) holds no token.")
        }
        guard Self.isWellFormed(token) else {
            // The message must not repeat the token: it is a secret, and may be half-pasted.
            throw .token("The token from \(name) contains spaces or control characters; it must be the bare token.")
        }
        return token
    }

    /// Whether `token` can follow `Bearer ` in a header: no space, no control character.
    static func isWellFormed(_ token: String) -> Bool {
        !token.isEmpty && !token.contains(" ")
            && (try? HTTPHeaders.validate(name: "Authorization", value: "Bearer \(token)")) != nil
    }
}
