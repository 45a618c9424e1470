#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A loopback port (IPv4 or IPv6) that refuses every connection, for cannot-connect tests.
///
/// The port is bound but never listened on, and stays bound until this value is released, so
/// no other test's server can be given it meanwhile (a stopped server's port can be reused at
/// once by a server another test starts, which turns "refused" into a 404).
public final class RefusingPort: Sendable {
    private let fd: Int32
    /// The bound port number.
    public let port: Int

    /// Binds a socket on 127.0.0.1 (or `::1` with `ipv6`) with an OS-chosen port, without listening.
    public init(ipv6: Bool = false) throws {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.socket(errno) }
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        }
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ServerError.socket(errno)
        }
        self.fd = fd
        port = withUnsafeBytes(of: &storage) { raw in
            Int(UInt16(bigEndian: ipv6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    deinit { close(fd) }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
}
