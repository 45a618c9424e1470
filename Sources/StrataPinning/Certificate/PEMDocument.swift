import Foundation

/// The blocks of a PEM text (RFC 7468), decoded without OpenSSL so the parser is a pure function
/// over a string: easy to fuzz, and its errors can say exactly what was wrong.
enum PEMDocument {
    /// The label of an X.509 certificate block.
    static let certificateLabel = "CERTIFICATE"

    /// One `-----BEGIN <label>----- … -----END <label>-----` block.
    struct Block: Equatable {
        /// The label between `BEGIN ` and the dashes, for example `CERTIFICATE` or `PRIVATE KEY`.
        var label: String
        /// The decoded body.
        var der: Data
    }

    /// Decodes every block of `text` in order. RFC 7468 §2 allows explanatory text between
    /// blocks, so lines outside a block are ignored.
    ///
    /// - Throws: ``CertificateError`` when the text is empty or too large, a block is never
    ///   closed, or a body is not base64.
    static func blocks(in text: String) throws(CertificateError) -> [Block] {
        guard text.utf8.count <= Certificate.maximumPEMSize else {
            throw .tooLarge(bytes: text.utf8.count, limit: Certificate.maximumPEMSize)
        }
        guard text.contains(where: { !$0.isWhitespace }) else { throw .empty }
        var blocks: [Block] = []
        var open: (label: String, body: String)?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let current = open {
                if line == "-----END \(current.label)-----" {
                    guard let der = Data(base64Encoded: current.body), !der.isEmpty else {
                        throw .invalidBase64(label: current.label)
                    }
                    blocks.append(Block(label: current.label, der: der))
                    open = nil
                } else if line.hasPrefix("-----") {
                    // A new BEGIN (or a mismatched END) before this block's END: the block was cut.
                    throw .unterminatedPEMBlock(label: current.label)
                } else {
                    open?.body += line
                }
            } else if let label = beginLabel(line) {
                open = (label, "")
            }
        }
        if let open { throw .unterminatedPEMBlock(label: open.label) }
        return blocks
    }

    private static func beginLabel(_ line: String) -> String? {
        let prefix = "-----BEGIN ", suffix = "-----"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix), line.count > prefix.count + suffix.count else {
            return nil
        }
        return String(line.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
