#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IP address as its 4 or 16 bytes, and network (CIDR prefix) matching on them: what the
/// lists that name hosts by address or network share (`NO_PROXY`, a Redis cluster's allowed
/// hosts). Pure: no resolution, only literals.
package enum IPAddressBytes {
    /// The 4 or 16 bytes of an IP literal in its standard text form (`inet_pton`); `nil` for a
    /// name, an empty string, or text with a NUL (which `inet_pton` would stop at).
    package static func of(_ literal: String) -> [UInt8]? {
        guard !literal.isEmpty, !literal.utf8.contains(0) else { return nil }
        if literal.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = in_addr()
        guard inet_pton(AF_INET, literal, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// Whether the first `bits` bits of `address` are those of `network`; `false` when the two
    /// are of different families (4 and 16 bytes).
    package static func prefix(of address: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        guard address.count == network.count else { return false }
        for index in 0..<address.count {
            let remaining = bits - index * 8
            guard remaining > 0 else { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if address[index] & mask != network[index] & mask { return false }
        }
        return true
    }
}
