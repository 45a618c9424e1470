import COpenSSL

/// An OpenSSL call the sandbox made failed: which step, and OpenSSL's own reason.
package struct SandboxOpenSSLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the sandbox was doing, as a verb phrase ("sign the CA certificate").
    package let operation: String
    /// OpenSSL's error queue at the moment of the failure, or a fallback when it was empty.
    package let reason: String

    /// `OpenSSL could not <operation>: <reason>.`
    package var description: String {
        "OpenSSL could not \(operation): \(reason). The sandbox needs OpenSSL 3 (libssl3) with EC P-256."
    }

    /// Reads and clears OpenSSL's thread-local error queue for a failed `operation`, so the next
    /// call starts clean and the reason belongs to this failure.
    static func drained(_ operation: String) -> SandboxOpenSSLError {
        var reasons: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
        }
        return SandboxOpenSSLError(
            operation: operation,
            reason: reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; "))
    }
}
