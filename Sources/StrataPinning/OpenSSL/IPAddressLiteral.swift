import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a host is an IPv4 or IPv6 literal. Such hosts are checked against IP SANs and,
/// per RFC 6066 §3, are never sent as SNI.
enum IPAddressLiteral {
    /// True for `127.0.0.1`, `::1` and the like (no brackets).
    static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
