#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A loopback port where connecting never completes, as with a host whose packets are dropped
/// (a broken IPv6 route): for connection-racing tests.
///
/// The socket listens with a backlog of zero and one connection fills its queue; it never
/// accepts, so the kernel drops every later SYN and those `connect`s stay pending until the
/// client gives up. Everything closes when this value is released.
public final class SilentPort: Sendable {
    private let listener: Int32
    private let filler: Int32
    /// The bound port number.
    public let port: Int

    /// Binds and fills a listening socket on `::1` (`ipv6`) or `127.0.0.1`, OS-chosen port.
    public init(ipv6: Bool) throws {
        let family = ipv6 ? AF_INET6 : AF_INET
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_addr = in6addr_loopback
                raw.storeBytes(of: address, as: sockaddr_in6.self)
            }
        } else {
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                raw.storeBytes(of: address, as: sockaddr_in.self)
            }
        }
        let listener = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ServerError.socket(errno) }
        let listening = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        let filler = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        let filled =
            listening && filler >= 0
            && withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
            }
        guard filled else {
            let failure = errno
            close(listener)
            if filler >= 0 { close(filler) }
            throw ServerError.socket(failure)
        }
        self.listener = listener
        self.filler = filler
        port = withUnsafeBytes(of: &storage) { raw in
            Int(UInt16(bigEndian: ipv6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    deinit {
        close(filler)
        close(listener)
    }
}
