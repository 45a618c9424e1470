#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Strata

/// One address a host name resolved to, as `connect(2)` takes it.
package struct SocketAddress: Sendable, Hashable {
    package var family: Int32
    package var socketType: Int32
    package var socketProtocol: Int32
    /// The `sockaddr` bytes.
    package var bytes: [UInt8]
}

/// Turns a host name into addresses. Blocking: ``POSIXSocketStream`` runs it on a helper
/// thread and stops waiting at the connect timeout, so a resolver that never answers cannot
/// hold a connection past it.
package protocol HostNameResolver: Sendable {
    /// The addresses of `host` for TCP `port`, in the order to try them.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/cannotConnect`` when the name does not resolve.
    func resolve(_ host: String, port: Int) throws(TransportError) -> [SocketAddress]
}

/// The system resolver, `getaddrinfo` (which has no timeout of its own: `/etc/resolv.conf`'s
/// timeouts and attempts bound it).
package struct SystemHostNameResolver: HostNameResolver {
    package init() {}

    package func resolve(_ host: String, port: Int) throws(TransportError) -> [SocketAddress] {
        try Self.addresses(of: host, port: port, numericOnly: false)
    }

    /// `getaddrinfo` for TCP; with `numericOnly` an IP literal is parsed without any lookup.
    package static func addresses(of host: String, port: Int, numericOnly: Bool) throws(TransportError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TransportError(.cannotConnect, message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.ai_addrlen)))
            addresses.append(
                SocketAddress(
                    family: entry.ai_family, socketType: entry.ai_socktype,
                    socketProtocol: entry.ai_protocol, bytes: bytes))
        }
        return addresses
    }
}
