#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// HTTP header fields: case-insensitive names, insertion order kept, several values per name.
///
/// Names are compared case-insensitively (RFC 9110 §5.1) but stored as given, so headers go on
/// the wire as the caller spelled them. Use ``values(for:)`` for a header that may repeat, such
/// as `Set-Cookie`, and the subscript for the first value.
///
/// `HTTPHeaders` stores what it is given. Before anything goes on the wire, Strata checks every
/// field, so a name or value that contains CR, LF or NUL (a header injection) is refused with
/// ``HTTPHeaderError`` and never sent.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order, kept in the shape iteration hands out, so iterating copies nothing.
    private var fields: [(name: String, value: String)]

    /// Creates an empty set of headers.
    public init() { fields = [] }

    /// Creates headers from `(name, value)` pairs, keeping their order and any repeats.
    package init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// Creates headers from a dictionary literal such as `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name`, compared case-insensitively. Setting a value replaces every
    /// field of that name (keeping the first one's position); setting `nil` removes them all.
    public subscript(name: String) -> String? {
        get { fields.first { Self.equal($0.name, name) }?.value }
        set {
            guard let newValue else { return remove(name: name) }
            guard let first = fields.firstIndex(where: { Self.equal($0.name, name) }) else {
                return fields.append((name: name, value: newValue))
            }
            fields[first].value = newValue
            guard fields[(first + 1)...].contains(where: { Self.equal($0.name, name) }) else { return }
            fields = fields.enumerated().filter { $0.offset <= first || !Self.equal($0.element.name, name) }
                .map(\.element)
        }
    }

    /// Every value for `name`, compared case-insensitively, in the order received.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        for field in fields where Self.equal(field.name, name) { values.append(field.value) }
        return values
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equal($0.name, name) }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        guard contains(name) else { return }
        fields.removeAll { Self.equal($0.name, name) }
    }

    /// The headers without the fields whose name `isRemoved` picks, in order: one pass into one
    /// array, for code on every request's path (`filter` then `init` copies the fields twice).
    func removingFields(where isRemoved: (String) -> Bool) -> HTTPHeaders {
        var kept = HTTPHeaders()
        kept.fields.reserveCapacity(fields.count)
        for field in fields where !isRemoved(field.name) { kept.fields.append(field) }
        return kept
    }

    /// The number of fields, counting repeats.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order as `(name, value)` pairs.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Headers are equal when they hold the same fields in the same order, names compared
    /// case-insensitively.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && (lhs.sharesStorage(with: rhs)
                || zip(lhs.fields, rhs.fields).allSatisfy { equal($0.name, $1.name) && $0.value == $1.value })
    }

    /// Whether both hold the very same fields in memory (one is an unchanged copy of the other),
    /// which makes them equal without comparing a byte; `false` says nothing.
    package func sharesStorage(with other: HTTPHeaders) -> Bool {
        fields.withUnsafeBufferPointer { mine in
            other.fields.withUnsafeBufferPointer { theirs in
                mine.baseAddress == theirs.baseAddress && mine.count == theirs.count
            }
        }
    }

    /// Whether the fields `isKept` picks from each are the same, in the same order (names
    /// compared case-insensitively, values exactly): `==` for the fields that matter, compared
    /// in place without building the filtered copies.
    ///
    /// The two lists are walked side by side and `isKept` is asked only where they differ: two
    /// equal fields are kept or left out together (`isKept` must depend on the name alone, and
    /// treat names case-insensitively), so pairing them is what comparing the filtered lists
    /// would do. Headers that are mostly the same, the usual case, cost one comparison per field.
    package func equalsFields(of other: HTTPHeaders, keeping isKept: (String) -> Bool) -> Bool {
        let mine = fields, theirs = other.fields
        var index = 0, otherIndex = 0
        while index < mine.count || otherIndex < theirs.count {
            if index < mine.count, otherIndex < theirs.count, Self.sameField(mine[index], theirs[otherIndex]) {
                index += 1
                otherIndex += 1
            } else {
                // Where they differ, a field left out on either side is passed over (on both
                // sides at once, for a changed `Date`).
                let skipsMine = index < mine.count && !isKept(mine[index].name)
                let skipsTheirs = otherIndex < theirs.count && !isKept(theirs[otherIndex].name)
                guard skipsMine || skipsTheirs else { return false }
                if skipsMine { index += 1 }
                if skipsTheirs { otherIndex += 1 }
            }
        }
        return true
    }

    /// Whether two fields are the same: the value exactly, the name as `equal(_:_:)` compares
    /// names (bytes, ASCII case folded; not `==`, which would pair two spellings of one accented
    /// name that `==` on the headers tells apart).
    @inline(__always)
    private static func sameField(_ a: (name: String, value: String), _ b: (name: String, value: String)) -> Bool {
        a.value == b.value && equal(a.name, b.name)
    }

    /// Whether two strings are represented alike, which means the same bytes: a string of up to
    /// 15 UTF-8 bytes (most field names) holds them in its two words, a longer one points to its
    /// storage. Never true for different bytes; false for equal bytes in two storages,
    /// which `equal(_:_:)` then compares. It spares comparing names byte by byte for the many
    /// fields of two responses that are spelled alike.
    @inline(__always)
    private static func sameRepresentation(_ a: String, _ b: String) -> Bool {
        // Two words on 64-bit platforms; elsewhere there is no shortcut (a constant, folded away).
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return false }
        return unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    }

    /// Replaces the value of the field at `index` (in iteration order), keeping its name and place.
    package mutating func setValue(_ value: String, at index: Int) {
        fields[index].value = value
    }

    /// Hashes the fields consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for field in fields {
            for byte in field.name.utf8 { hasher.combine(Self.asciiLowercased(byte)) }
            hasher.combine(field.value)
        }
    }

    /// Header names are ASCII tokens, so they compare ASCII-case-insensitively (Unicode folding
    /// would make `straße` equal `STRASSE` and break hashing's agreement with `==`).
    ///
    /// On the path of every request, so: two names spelled alike are seen in their
    /// representation (over HTTP/1.1 most names a layer looks for are spelled as servers send
    /// them; HTTP/2 sends names lower-cased), then lengths (most other names differ in length),
    /// then the bytes in place, without building a lower-cased copy.
    @inline(__always)
    package static func equal(_ a: String, _ b: String) -> Bool {
        sameRepresentation(a, b) || (a.utf8.count == b.utf8.count && equalBytes(a, b))
    }

    /// ``equal(_:_:)`` for two names of the same length.
    private static func equalBytes(_ a: String, _ b: String) -> Bool {
        // Native and small strings lend their bytes without the copies `withUTF8` needs.
        let inPlace = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                for index in 0..<a.count where a[index] != b[index] {
                    guard asciiLowercased(a[index]) == asciiLowercased(b[index]) else { return false }
                }
                return true
            }
        }
        if let inPlace, let equal = inPlace { return equal }
        return zip(a.utf8, b.utf8).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    @inline(__always)
    package static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}

// MARK: - Validation

extension HTTPHeaders {
    /// Checks that `name` is an RFC 9110 token (ASCII letters, digits and `!#$%&'*+-.^_`|~`, at
    /// least one) and `value` holds no control character other than horizontal tab and no DEL,
    /// so the field cannot inject headers or split a request. Bytes of 0x80 and above are
    /// allowed in a value (obs-text), never in a name. The name is checked first.
    ///
    /// Each string's UTF-8 is read in place when it is contiguous (it runs for every field of
    /// every pinned request; see Performance, "Bytes read in place"); otherwise byte by byte.
    ///
    /// - Throws: ``HTTPHeaderError/invalidName(_:)``, or ``HTTPHeaderError/invalidValue(name:byte:)``
    ///   with the value's first forbidden byte.
    package static func validate(name: String, value: String) throws(HTTPHeaderError) {
        // `withContiguousStorageIfAvailable` answers `nil` only when it cannot read in place;
        // `??` then takes the walk, so the result is one optional.
        let validName = name.utf8.withContiguousStorageIfAvailable(isToken) ?? isToken(name.utf8)
        guard validName else { throw .invalidName(name) }
        let forbidden = value.utf8.withContiguousStorageIfAvailable(firstForbiddenValueByte) ?? firstForbiddenValueByte(in: value.utf8)
        if let forbidden { throw .invalidValue(name: name, byte: forbidden) }
    }

    /// Whether `bytes` are a non-empty RFC 9110 token.
    static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    /// The first byte a field value may not hold: a control character other than horizontal
    /// tab, or DEL.
    static func firstForbiddenValueByte(in bytes: some Collection<UInt8>) -> UInt8? {
        bytes.first { $0 == 0x7F || ($0 < 0x20 && $0 != 0x09) }
    }

    /// Checks every field with ``validate(name:value:)``.
    ///
    /// - Throws: ``HTTPHeaderError`` for the first offending field.
    package func validate() throws(HTTPHeaderError) {
        for field in fields { try Self.validate(name: field.name, value: field.value) }
    }

    /// RFC 9110 §5.6.2: `tchar`, the characters of a token such as a header name or a method.
    ///
    /// One `switch`: looking the punctuation up in a string literal's bytes cost about 300
    /// instructions a byte, paid for each `-` of a name such as `If-None-Match` on every request.
    /// Inlinable, so the HTTP/1.1 parser's byte loop in another module keeps it inline.
    @inlinable
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

// MARK: - Foundation bridges

extension HTTPHeaders {
    /// Creates headers from an `HTTPURLResponse`. FoundationNetworking joins repeated fields
    /// with ", "; they arrive here as one field.
    init(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            headers.add(name: name, value: value)
        }
        self = headers
    }

    /// The request's header fields. `URLRequest` keeps one value per name.
    init(_ request: URLRequest) {
        self.init()
        guard let all = request.allHTTPHeaderFields, !all.isEmpty else { return }
        fields = all.map { (name: $0.key, value: $0.value) }
        if fields.count > 1 { fields.sort { $0.name < $1.name } }
    }
}
