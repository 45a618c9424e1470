#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one form of a request's host that every step uses: `pinnedDomains` matching, the pool
/// key, SNI, certificate name verification and name resolution.
///
/// `URL.host` percent-decodes, so `https://localhost%00.evil.test/` yields a host with a NUL in
/// it: a Swift comparison sees the whole string while every C API (SNI, `getaddrinfo`) stops at
/// the NUL. Different steps would then talk about different hosts. Computing one canonical value,
/// which cannot hold such bytes, closes that gap:
/// - DNS names: lowercased, one trailing dot dropped (RFC 6066 §3 forbids it in SNI, and
///   `a.example.` is `a.example`), only `a-z 0-9 - _ .` allowed, no empty label, at most 253
///   characters. The underscore is kept because ``HostPattern`` accepts it (service names).
/// - IP literals: the form `inet_ntop` prints, so `127.1`, `0x7f.0.0.1` (IPv4 forms `inet_aton`
///   and hence `getaddrinfo` accept) and `0:0:0:0:0:0:0:1` become `127.0.0.1` and `::1` and match
///   the patterns written for them. IPv6 may arrive with or without URL brackets.
/// - An IPv6 literal that embeds an IPv4 address is that IPv4 address: IPv4-mapped
///   (`::ffff:127.0.0.1`, RFC 4291 §2.5.5.2), IPv4-compatible (`::127.0.0.1`, §2.5.5.1),
///   IPv4-translated (`::ffff:0:127.0.0.1`, RFC 2765) and the NAT64 well-known prefix
///   (`64:ff9b::127.0.0.1`, RFC 6052). Otherwise `https://[::ffff:127.0.0.1]/` would reach the
///   host pinned as `127.0.0.1` under a name no pattern matches, and travel unpinned.
/// Pure policy: no I/O.
struct CanonicalHost: Sendable, Hashable, CustomStringConvertible {
    /// The canonical text: a DNS name or an IP address without brackets.
    let name: String
    /// Whether ``name`` is an IPv4 or IPv6 address (checked against IP SANs, never sent as SNI).
    let isIPAddress: Bool

    var description: String { name }

    /// Canonicalizes `host` (as `URL.host` gives it).
    ///
    /// - Throws: ``CanonicalHostError`` naming what makes `host` unusable.
    init(_ host: String) throws(CanonicalHostError) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 { text = text.dropFirst().dropLast() }
        if let bad = text.utf8.first(where: { !Self.isAllowed($0) }) {
            throw .disallowedByte(host: host, byte: bad)
        }
        let lowered = String(text).lowercased()
        if lowered.contains(":") {
            guard let address = Self.canonicalIPv6(lowered) else { throw .malformedIPv6(host: host) }
            (name, isIPAddress) = (address, true)
            return
        }
        var dns = Substring(lowered)
        if dns.hasSuffix(".") { dns = dns.dropLast() }
        guard !dns.isEmpty else { throw .empty(host: host) }
        guard dns.utf8.count <= HostPattern.maximumHostLength else { throw .tooLong(host: host) }
        guard !dns.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw .emptyLabel(host: host)
        }
        if let address = Self.canonicalIPv4(String(dns)) {
            (name, isIPAddress) = (address, true)
        } else {
            (name, isIPAddress) = (String(dns), false)
        }
    }

    /// ASCII letters (either case, lowered afterwards), digits, `-`, `_`, `.` and `:` (IPv6).
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            true
        default:
            false
        }
    }

    /// Every spelling `inet_aton` accepts (so `getaddrinfo` would connect to), printed dotted-quad.
    private static func canonicalIPv4(_ text: String) -> String? {
        var address = in_addr()
        guard inet_aton(text, &address) != 0 else { return nil }
        return presentationForm(family: AF_INET, &address, capacity: Int(INET_ADDRSTRLEN))
    }

    /// An IPv6 literal in RFC 5952 form, or the IPv4 address it embeds in dotted-quad form; nil
    /// for anything `inet_pton` refuses (zone ids included).
    private static func canonicalIPv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if var embedded = embeddedIPv4(bytes) {
            return presentationForm(family: AF_INET, &embedded, capacity: Int(INET_ADDRSTRLEN))
        }
        return presentationForm(family: AF_INET6, &address, capacity: Int(INET6_ADDRSTRLEN))
    }

    /// The IPv4 address in the last four bytes of an IPv4-embedding IPv6 address, or nil.
    /// Compatible and translated forms need a non-zero first octet, so `::`, `::1` and
    /// `::ffff:0:0:1` stay IPv6.
    private static func embeddedIPv4(_ bytes: [UInt8]) -> in_addr? {
        let prefix = bytes[0..<12], ipv4 = Array(bytes[12..<16])
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let translated: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]
        let nat64: [UInt8] = [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        let compatible = [UInt8](repeating: 0, count: 12)
        let embeds =
            Array(prefix) == mapped || Array(prefix) == nat64
            || ((Array(prefix) == translated || Array(prefix) == compatible) && ipv4[0] != 0)
        guard embeds else { return nil }
        var address = in_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: ipv4) }
        return address
    }

    private static func presentationForm<Address>(
        family: Int32, _ address: inout Address,
        capacity: Int
    ) -> String? {
        var buffer = [CChar](repeating: 0, count: capacity)
        let printed = withUnsafeBytes(of: &address) { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(capacity)) != nil
        }
        guard printed else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a request's host cannot be used; the transport refuses the request before any I/O.
enum CanonicalHostError: Error, Sendable, Equatable, CustomStringConvertible {
    case disallowedByte(host: String, byte: UInt8)
    case malformedIPv6(host: String)
    case empty(host: String)
    case tooLong(host: String)
    case emptyLabel(host: String)

    var description: String {
        switch self {
        case let .disallowedByte(host, byte):
            let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
            return "the host \(Self.quoted(host)) contains the byte \(shown), which cannot appear in a host name "
                + "(only letters, digits, '-', '_' and '.'; write internationalized names in their xn-- form)"
        case let .malformedIPv6(host):
            return "the host \(Self.quoted(host)) is not a valid IPv6 address (zone identifiers are not supported)"
        case let .empty(host):
            return "the host \(Self.quoted(host)) is empty"
        case let .tooLong(host):
            return "the host \(Self.quoted(host)) is longer than \(HostPattern.maximumHostLength) characters"
        case let .emptyLabel(host):
            return "the host \(Self.quoted(host)) has an empty label ('..' or a leading dot)"
        }
    }

    /// The host with control characters escaped, so a message stays one readable line.
    private static func quoted(_ host: String) -> String {
        "'"
            + host.unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F
                    ? String($0) : "\\u{\(String($0.value, radix: 16))}"
            }.joined() + "'"
    }
}
