import Foundation
@testable import StrataPinning

/// The committed content-coding fixtures of Tests/Fixtures/ContentCoding (see its README), and
/// the gzip and deflate forms of the same body made with zlib.
enum CodingFixtures {
    static let directory = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("ContentCoding")

    /// The decoded body every coded form holds: 220 KB of JSON.
    static let json: [UInt8] = Array(try! Data(contentsOf: directory.appendingPathComponent("todos.json")))

    /// `json` in `coding`; deflate in the zlib format unless `raw`.
    static func coded(_ coding: ContentCoding, raw: Bool = false) -> [UInt8] {
        switch coding {
        case .gzip: ZlibEncoder.encode(json, .gzip)
        case .deflate: ZlibEncoder.encode(json, raw ? .rawDeflate : .zlib)
        case .brotli: Array(try! Data(contentsOf: directory.appendingPathComponent("todos.json.br")))
        case .zstd: Array(try! Data(contentsOf: directory.appendingPathComponent("todos.json.zst")))
        }
    }

    /// Every coded form this build can decode, named for test messages.
    static var allForms: [(name: String, coding: ContentCoding, bytes: [UInt8])] {
        var forms: [(String, ContentCoding, [UInt8])] = [
            ("gzip", .gzip, coded(.gzip)), ("deflate (zlib)", .deflate, coded(.deflate)),
            ("deflate (raw)", .deflate, coded(.deflate, raw: true)),
        ]
        if ContentCoding.supported.contains(.brotli) { forms.append(("br", .brotli, coded(.brotli))) }
        if ContentCoding.supported.contains(.zstd) { forms.append(("zstd", .zstd, coded(.zstd))) }
        return forms
    }
}
