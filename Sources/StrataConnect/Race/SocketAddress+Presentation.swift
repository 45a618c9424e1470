#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SocketAddress {
    /// The IP address in text form (`127.0.0.1`, `::1`), for events and error messages.
    package var presentation: String {
        bytes.withUnsafeBytes { raw -> String in
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let printed: Bool
            switch family {
            case AF_INET where raw.count >= MemoryLayout<sockaddr_in>.size:
                var address = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
                printed = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil
            case AF_INET6 where raw.count >= MemoryLayout<sockaddr_in6>.size:
                var address = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
                printed = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
            default:
                printed = false
            }
            guard printed else { return "an address of family \(family)" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
