import Foundation
import StrataPinning

/// Certificates from a file named on the command line: a PEM file (one certificate or a
/// bundle, text around the blocks ignored) or one DER certificate.
enum CertificateFile {
    /// Every certificate in the file, in file order.
    ///
    /// - Throws: ``InputFile/Failure`` when the file cannot be read, is larger than a PEM
    ///   bundle may be, or holds no well-formed certificate.
    static func read(_ path: String) throws(InputFile.Failure) -> [Certificate] {
        let data = try InputFile.read(path, limit: Certificate.maximumPEMSize)
        do {
            // PEM is text with a BEGIN line; anything else is taken for DER (which starts with 0x30).
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") {
                return try Certificate.certificates(pemBundle: text)
            }
            return [try Certificate(der: data)]
        } catch {
            let reason = error.description.hasSuffix(".") ? String(error.description.dropLast()) : error.description
            throw InputFile.Failure(path: path, reason: "it holds no usable certificate: \(reason)")
        }
    }
}
