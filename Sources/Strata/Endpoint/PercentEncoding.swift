/// Strict RFC 3986 percent-encoding for the pieces of a URL Strata builds.
///
/// `URLComponents` leaves `+` (and in query values `=`/`&` in some positions) as they are, and a
/// server reading `application/x-www-form-urlencoded` rules turns `+` into a space. Encoding
/// everything outside the unreserved set makes values survive the round trip exactly.
enum PercentEncoding {
    /// Encodes a query name or value: only unreserved characters (RFC 3986 §2.3) stay literal.
    static func queryComponent(_ text: String) -> String {
        encode(text) { isUnreserved($0) }
    }

    /// Encodes a path: unreserved, sub-delimiters, `:`, `@` and `/` stay literal (RFC 3986 §3.3),
    /// as do existing valid `%XX` escapes, so both raw and pre-encoded paths work.
    static func path(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output = ""
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
            {
                output += String(decoding: bytes[index...index + 2], as: UTF8.self)
                index += 3
                continue
            }
            if isUnreserved(byte) || isPathDelimiter(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += escape(byte)
            }
            index += 1
        }
        return output
    }

    /// Encodes query items as `name=value&...`; a `nil` value yields just the name.
    static func query(_ items: [(name: String, value: String?)]) -> String {
        items.map { item in
            let name = queryComponent(item.name)
            guard let value = item.value else { return name }
            return name + "=" + queryComponent(value)
        }.joined(separator: "&")
    }

    private static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keep(byte) { output.unicodeScalars.append(Unicode.Scalar(byte)) } else { output += escape(byte) }
        }
        return output
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func escape(_ byte: UInt8) -> String {
        String(decoding: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]], as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Sub-delimiters, `:`, `@` and `/`: literal in a path (RFC 3986 §3.3).
    private static func isPathDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }
}
