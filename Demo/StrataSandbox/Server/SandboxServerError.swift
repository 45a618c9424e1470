#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``SandboxServer`` could not start.
package enum SandboxServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The port is outside 0...65535.
    case invalidPort(Int)
    /// Binding 127.0.0.1 on `port` failed (most often: another process uses it).
    case cannotListen(port: Int, errno: Int32)
    /// A socket call failed.
    case system(call: String, errno: Int32)
    /// OpenSSL refused the identity.
    case tls(SandboxOpenSSLError)

    /// What went wrong and what to try.
    package var description: String {
        switch self {
        case .invalidPort(let port):
            "The port must be from 0 to 65535 (0 lets the system choose), not \(port)."
        case .cannotListen(let port, let code) where code == EADDRINUSE:
            "Port \(port) on 127.0.0.1 is already in use. Stop what listens there, or choose another port."
        case .cannotListen(let port, let code):
            "Cannot listen on 127.0.0.1:\(port): \(Self.text(code))."
        case .system(let call, let code):
            "The socket call \(call) failed: \(Self.text(code))."
        case .tls(let error):
            error.description
        }
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
