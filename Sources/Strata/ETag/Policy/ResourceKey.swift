import Foundation

/// The resource part of an ETag key: a URL without fragment and userinfo, scheme and host
/// lower-cased, and the URL's userinfo (a credential, kept out of the key and counted in the
/// identity instead).
///
/// `URLComponents` does this for any URL, at the cost of a full parse and an IDNA pass over the
/// host (most of an ETag layer's time per request). A URL of the common shape (an ASCII
/// `scheme://host[:port]` with a plain host name, a port without leading zeros and no userinfo)
/// is taken apart by one scan of its text instead, with the same result: the test suite
/// compares both on a corpus of URLs.
struct ResourceKey: Equatable {
    /// The URL without fragment and userinfo, scheme and host lower-cased.
    var resource: String
    /// `user:password` when the URL has userinfo.
    var userinfo: String?

    init(_ url: URL) {
        let text = url.absoluteString
        if let resource = Self.simpleResource(text) {
            self.resource = resource
            userinfo = nil
        } else {
            self = Self.parsed(url, absoluteString: text)
        }
    }

    /// The key by `URLComponents`, for any URL.
    static func parsed(_ url: URL, absoluteString: String) -> ResourceKey {
        let userinfo = url.user != nil || url.password != nil ? "\(url.user ?? ""):\(url.password ?? "")" : nil
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            // A URL URLComponents cannot take apart is keyed by its digest: its text may hold userinfo.
            return ResourceKey(resource: "sha256:" + SHA256.hexDigest(Array(absoluteString.utf8)), userinfo: userinfo)
        }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        return ResourceKey(resource: components.string ?? "sha256:" + SHA256.hexDigest(Array(absoluteString.utf8)),
                           userinfo: userinfo)
    }

    private init(resource: String, userinfo: String?) {
        self.resource = resource
        self.userinfo = userinfo
    }

    /// The resource of an absolute URL whose text is `scheme://host[:port][rest][#fragment]`,
    /// all ASCII, the host letters, digits, dots and hyphens (no `xn--` label, which IDNA may
    /// rewrite), the port digits without a leading zero; `nil` for any other shape.
    static func simpleResource(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let count = bytes.count
            // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then "://".
            var index = 0
            while index < count, isSchemeByte(bytes[index], first: index == 0) { index += 1 }
            let schemeEnd = index
            guard schemeEnd > 0, count - index >= 3, bytes[index] == UInt8(ascii: ":"),
                  bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else { return nil }
            index += 3
            let hostStart = index
            while index < count, isHostByte(bytes[index]) { index += 1 }
            let hostEnd = index
            guard hostEnd > hostStart, !containsPunycodeLabel(bytes, hostStart..<hostEnd) else { return nil }
            if index < count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                let portStart = index
                while index < count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > portStart, bytes[portStart] != UInt8(ascii: "0") else { return nil }
            }
            // The authority ends here: anything but a path, query or fragment (userinfo's "@",
            // an IPv6 "[", a percent-encoded host) goes the slow way.
            guard index == count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                    || bytes[index] == UInt8(ascii: "#") else { return nil }
            var end = index
            while end < count, bytes[end] != UInt8(ascii: "#") {
                guard bytes[end] < 0x80 else { return nil }
                end += 1
            }
            return String(unsafeUninitializedCapacity: end) { output in
                for position in 0..<end {
                    let byte = bytes[position]
                    let lowered = position < schemeEnd || (position >= hostStart && position < hostEnd)
                    output[position] = lowered ? HTTPHeaders.asciiLowercased(byte) : byte
                }
                return end
            }
        }
    }

    private static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
        default: false
        }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Whether a label of the host starts with `xn--` (any case).
    private static func containsPunycodeLabel(_ bytes: UnsafeBufferPointer<UInt8>, _ host: Range<Int>) -> Bool {
        var labelStart = host.lowerBound
        while labelStart < host.upperBound {
            if host.upperBound - labelStart >= 4,
               HTTPHeaders.asciiLowercased(bytes[labelStart]) == UInt8(ascii: "x"),
               HTTPHeaders.asciiLowercased(bytes[labelStart + 1]) == UInt8(ascii: "n"),
               bytes[labelStart + 2] == UInt8(ascii: "-"), bytes[labelStart + 3] == UInt8(ascii: "-") { return true }
            var next = labelStart
            while next < host.upperBound, bytes[next] != UInt8(ascii: ".") { next += 1 }
            labelStart = next + 1
        }
        return false
    }
}
