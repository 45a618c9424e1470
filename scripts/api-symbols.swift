// Reduces SwiftPM symbol graphs to one line per public symbol, sorted, per library product
// module, so that a change to the public API shows up as a readable diff (see api-check.sh).
//
// Usage: swift scripts/api-symbols.swift <package-dump.json> <symbolgraph-dir> <output-dir>
// Writes <output-dir>/<Module>.txt for every target of every library product. Each line is
// `Path.to.symbol [kind] declaration`; extensions of another module's types are prefixed with
// that module's name in brackets, deprecated declarations end with `(deprecated)`.
import Foundation

struct PackageDump: Decodable {
    struct Product: Decodable {
        let name: String
        let targets: [String]
        let type: [String: AnyDecodable]
    }
    let products: [Product]
}

/// Decodes and ignores any JSON value (a product type is `{"library": ["automatic"]}`).
struct AnyDecodable: Decodable {
    init(from decoder: any Decoder) throws {}
}

struct Graph: Decodable {
    struct Symbol: Decodable {
        struct Kind: Decodable { let identifier: String }
        struct Identifier: Decodable { let precise: String }
        struct Fragment: Decodable { let spelling: String }
        struct Availability: Decodable { let isUnconditionallyDeprecated: Bool? }
        let kind: Kind
        let identifier: Identifier
        let pathComponents: [String]
        let accessLevel: String
        let declarationFragments: [Fragment]?
        let availability: [Availability]?
    }
    let symbols: [Symbol]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("api-symbols: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: api-symbols.swift <package-dump.json> <symbolgraph-dir> <output-dir>") }
let dump = try JSONDecoder().decode(PackageDump.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
let graphs = URL(fileURLWithPath: arguments[2])
let output = URL(fileURLWithPath: arguments[3])
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
let files = try FileManager.default.contentsOfDirectory(atPath: graphs.path)
let modules = Set(dump.products.filter { $0.type["library"] != nil }.flatMap(\.targets))

for module in modules.sorted() {
    var lines = Set<String>()
    let moduleFiles = files.filter { $0 == "\(module).symbols.json" || ($0.hasPrefix("\(module)@") && $0.hasSuffix(".symbols.json")) }
    guard !moduleFiles.isEmpty else { fail("no symbol graph for \(module) in \(graphs.path)") }
    for file in moduleFiles {
        let graph = try JSONDecoder().decode(Graph.self, from: Data(contentsOf: graphs.appendingPathComponent(file)))
        let extended = file.split(separator: "@").dropFirst().first.map { "[\($0.dropLast(".symbols.json".count))] " } ?? ""
        for symbol in graph.symbols where symbol.accessLevel == "public" || symbol.accessLevel == "open" {
            // Default implementations a type inherits (`!=`, a protocol extension's methods) are
            // listed once, on the protocol or extension that declares them.
            guard !symbol.identifier.precise.contains("::SYNTHESIZED::") else { continue }
            let declaration = (symbol.declarationFragments ?? []).map(\.spelling).joined()
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            let deprecated = symbol.availability?.contains { $0.isUnconditionallyDeprecated == true } == true
            let kind = symbol.kind.identifier.replacingOccurrences(of: "swift.", with: "")
            lines.insert("\(extended)\(symbol.pathComponents.joined(separator: ".")) [\(kind)] \(declaration)"
                + (deprecated ? " (deprecated)" : ""))
        }
    }
    try (lines.sorted().joined(separator: "\n") + "\n").write(to: output.appendingPathComponent("\(module).txt"),
                                                              atomically: true, encoding: .utf8)
}
