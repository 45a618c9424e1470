#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds `pinnedDomains` keys written as something other than a bare host, which no URL host
/// can ever equal: `localhost:18443`, `https://api.example.com`, `api.example.com/v1`,
/// `user@host`, `[::1]`. Accepting one would leave the host it meant unpinned, so
/// ``HostPattern`` refuses it and shows the host to write instead.
enum HostPatternSpelling {
    /// Why `pattern` is not a bare host, naming the right spelling; nil when it is one (it may
    /// still be malformed in other ways, which ``HostPattern`` reports).
    static func problem(in pattern: String) -> String? {
        var host = Substring(pattern)
        var parts: [String] = []
        if let scheme = host.range(of: "://") {
            host = host[scheme.upperBound...]
            parts.append("a scheme")
        }
        if let end = host.firstIndex(where: { "/?#".contains($0) }) {
            host = host[..<end]
            parts.append("a path")
        }
        if let at = host.lastIndex(of: "@") {
            host = host[host.index(after: at)...]
            parts.append("a user")
        }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            parts.append(rest.isEmpty ? "URL brackets" : "URL brackets and a port")
        } else if host.contains("[") || host.contains("]") {
            return "'[' and ']' belong around an IPv6 address in a URL, not in a host pattern"
        } else if host.contains(":"), !isIPv6(host) {
            let pieces = host.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, !pieces[1].isEmpty, pieces[1].allSatisfy(\.isASCII), pieces[1].allSatisfy(\.isNumber) else {
                return "':' may appear only in an IPv6 address, and '\(shortened(host))' is not a valid one "
                    + "(zone identifiers such as '%eth0' are not supported)"
            }
            host = pieces[0]
            parts.append("a port")
        }
        guard !parts.isEmpty else { return nil }
        let list = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        return "it has \(list), so it can never equal a request's host and that host would go unpinned; "
            + "write '\(shortened(host).lowercased())' (a pattern names a host alone: its pins apply on every port)"
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, String(text), &address) == 1
    }

    private static func shortened(_ text: Substring) -> String {
        text.count <= 100 ? String(text) : text.prefix(100) + "…"
    }
}
