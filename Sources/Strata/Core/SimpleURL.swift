import Foundation

/// The parts of an absolute URL of the common shape, found by one scan of its text:
/// `scheme://host[:port][path][?query][#fragment]`, all ASCII, the host letters, digits, dots and
/// hyphens with no `xn--` label (which IDNA may rewrite), the port digits without a leading zero,
/// no userinfo. The parts are as written (percent-encoded), as `URLComponents`'
/// `percentEncoded…` properties give them for such a URL (the tests compare both on a corpus),
/// at a fraction of the cost: `URLComponents` parses the whole URL again and passes the host
/// through IDNA, which is most of what an ETag key or a request line costs.
///
/// A URL of any other shape (IPv6 literals, userinfo, international or percent-encoded hosts)
/// gives `nil`; callers then use `URLComponents`.
package struct SimpleURL {
    /// The scheme, as written.
    package let scheme: Substring
    /// The host, as written.
    package let host: Substring
    /// The port, when the URL names one.
    package let port: Int?
    /// The path, percent-encoded, as written; empty when the URL has none.
    package let path: Substring
    /// The query after `?` and before `#`, percent-encoded; `nil` without a `?`.
    package let query: Substring?

    /// The parts of `url`, or `nil` when it is not of the common shape.
    package init?(_ url: URL) {
        self.init(absoluteString: url.absoluteString)
    }

    /// The parts of the URL text `absoluteString`, or `nil` when it is not of the common shape.
    package init?(absoluteString text: String) {
        var copy = text
        guard let offsets = copy.withUTF8({ Self.scan($0) }) else { return nil }
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        scheme = text[..<index(offsets.schemeEnd)]
        host = text[index(offsets.hostStart)..<index(offsets.hostEnd)]
        port = offsets.port
        path = text[index(offsets.pathStart)..<index(offsets.pathEnd)]
        query = offsets.queryStart.map { text[index($0)..<index(offsets.resourceEnd)] }
    }

    /// The URL text `absoluteString` without its fragment, scheme and host lower-cased (the same
    /// resource however its name was spelled), in one scan; `nil` when it is not of the common
    /// shape.
    package static func resource(ofAbsoluteString text: String) -> String? {
        withResource(ofAbsoluteString: text) { resource, lowercasedCount in
            String(unsafeUninitializedCapacity: resource.count) { output in
                copyResource(resource, lowercasing: lowercasedCount, to: output)
            }
        }
    }

    /// Calls `body` with the bytes of ``resource(ofAbsoluteString:)`` as written and how many of
    /// them (scheme, "://" and host) it lower-cases, so that a caller can build a longer string
    /// around the resource in one allocation; `nil` when the URL is not of the common shape.
    package static func withResource<Result>(
        ofAbsoluteString text: String,
        _ body: (UnsafeBufferPointer<UInt8>, Int) -> Result
    ) -> Result? {
        var text = text
        return text.withUTF8 { bytes -> Result? in
            guard let offsets = scan(bytes) else { return nil }
            return body(UnsafeBufferPointer(rebasing: bytes[0..<offsets.resourceEnd]), offsets.hostEnd)
        }
    }

    /// Copies `resource` (from ``withResource(ofAbsoluteString:_:)``) to the start of `output`,
    /// its first `lowercasedCount` bytes lower-cased; returns the bytes written.
    package static func copyResource(
        _ resource: UnsafeBufferPointer<UInt8>, lowercasing lowercasedCount: Int,
        to output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        for position in 0..<lowercasedCount {
            // Scheme, "://" and host: lower-cased (":" and "/" are unchanged by it).
            output[position] = HTTPHeaders.asciiLowercased(resource[position])
        }
        _ = UnsafeMutableBufferPointer(rebasing: output[lowercasedCount..<resource.count])
            .initialize(fromContentsOf: UnsafeBufferPointer(rebasing: resource[lowercasedCount...]))
        return resource.count
    }

    private struct Offsets {
        var schemeEnd: Int
        var hostStart: Int
        var hostEnd: Int
        var port: Int?
        var pathStart: Int
        var pathEnd: Int
        var queryStart: Int?
        var resourceEnd: Int
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Offsets? {
        let count = bytes.count
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then "://".
        var index = 0
        while index < count, isSchemeByte(bytes[index], first: index == 0) { index += 1 }
        let schemeEnd = index
        guard schemeEnd > 0, count - index >= 3, bytes[index] == UInt8(ascii: ":"),
            bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        index += 3
        let hostStart = index
        while index < count, isHostByte(bytes[index]) { index += 1 }
        let hostEnd = index
        guard hostEnd > hostStart, !containsPunycodeLabel(bytes, hostStart..<hostEnd) else { return nil }
        var port: Int?
        if index < count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            var value = 0
            while index < count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - portStart < 5 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index > portStart, bytes[portStart] != UInt8(ascii: "0") else { return nil }
            port = value
        }
        // The authority ends here: anything but a path, query or fragment (userinfo's "@", an
        // IPv6 "[", a percent-encoded host, a sixth port digit) is not the common shape.
        guard
            index == count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                || bytes[index] == UInt8(ascii: "#")
        else { return nil }
        let pathStart = index
        var queryStart: Int?
        while index < count, bytes[index] != UInt8(ascii: "#") {
            guard bytes[index] < 0x80 else { return nil }
            if queryStart == nil, bytes[index] == UInt8(ascii: "?") { queryStart = index + 1 }
            index += 1
        }
        return Offsets(
            schemeEnd: schemeEnd, hostStart: hostStart, hostEnd: hostEnd, port: port, pathStart: pathStart,
            pathEnd: queryStart.map { $0 - 1 } ?? index, queryStart: queryStart, resourceEnd: index)
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
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
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
                bytes[labelStart + 2] == UInt8(ascii: "-"), bytes[labelStart + 3] == UInt8(ascii: "-")
            {
                return true
            }
            var next = labelStart
            while next < host.upperBound, bytes[next] != UInt8(ascii: ".") { next += 1 }
            labelStart = next + 1
        }
        return false
    }
}
