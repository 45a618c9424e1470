@testable import Strata
import TestServer
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("names are case-insensitive and keep their spelling")
    func caseInsensitive() {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.map(\.name) == ["Content-Type"])
    }

    @Test("repeated fields keep every value in order")
    func multiValued() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "X-Other", value: "x")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1")
        #expect(headers.count == 3)
        #expect(headers.map(\.name) == ["Set-Cookie", "X-Other", "set-cookie"])
    }

    @Test("setting through the subscript replaces every value in place; nil removes them")
    func subscriptReplaces() {
        var headers = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3")])
        headers["a"] = "9"
        #expect(Array(headers.map { "\($0.name)=\($0.value)" }) == ["A=9", "B=2"])
        headers["b"] = nil
        #expect(!headers.contains("B"))
        headers["C"] = "new"
        #expect(headers.map(\.name) == ["A", "C"])
    }

    @Test("equality ignores name case but not order or values")
    func equality() {
        #expect(HTTPHeaders([("ETag", "x")]) == HTTPHeaders([("etag", "x")]))
        #expect(HTTPHeaders([("ETag", "x")]).hashValue == HTTPHeaders([("etag", "x")]).hashValue)
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != HTTPHeaders([("B", "2"), ("A", "1")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("A", "2")]))
        // Only ASCII letters fold: equal values must hash equally.
        #expect(HTTPHeaders([("straße", "1")]) != HTTPHeaders([("STRASSE", "1")]))
    }

    @Test(
        "names compare as ASCII lower-casing would: letters fold, neighbouring punctuation and non-ASCII do not",
        arguments: [
            ("Content-Type", "content-type"), ("ETAG", "etag"), ("ETag", "ETags"), ("X-A", "X_A"), ("X@", "X`"),
            ("X[", "X{"), ("Z", "z"), ("É", "é"), ("é", "é"), ("", ""), ("a", ""), ("Accept", "Accepu"),
        ])
    func nameComparison(a: String, b: String) {
        // The reference: lower-casing ASCII letters only, as RFC 9110 tokens are ASCII.
        func folded(_ name: String) -> [UInt8] { name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 } }
        let expected = folded(a) == folded(b)
        #expect(HTTPHeaders.equal(a, b) == expected)
        #expect(HTTPHeaders.equal(b, a) == expected)
        let headers = HTTPHeaders([(a, "v")])
        #expect(headers.contains(b) == expected)
        #expect(headers[b] == (expected ? "v" : nil))
        #expect(headers.values(for: b) == (expected ? ["v"] : []))
        if expected { #expect(headers.hashValue == HTTPHeaders([(b, "v")]).hashValue) }
    }

    @Test("comparing only the kept fields: order, values and presence count, skipped fields and name case do not")
    func equalsKeptFields() {
        let stored = HTTPHeaders([("ETag", "\"1\""), ("Date", "day 1"), ("Content-Type", "text/plain")])
        let isKept = { (name: String) in !HTTPHeaders.equal(name, "Date") }
        #expect(
            stored.equalsFields(of: HTTPHeaders([("etag", "\"1\""), ("Content-Type", "text/plain"), ("Date", "day 2")]), keeping: isKept))
        #expect(stored.equalsFields(of: HTTPHeaders([("ETag", "\"1\""), ("Content-Type", "text/plain")]), keeping: isKept))
        #expect(!stored.equalsFields(of: HTTPHeaders([("Content-Type", "text/plain"), ("ETag", "\"1\"")]), keeping: isKept))
        #expect(!stored.equalsFields(of: HTTPHeaders([("ETag", "\"2\""), ("Content-Type", "text/plain")]), keeping: isKept))
        #expect(!stored.equalsFields(of: HTTPHeaders([("ETag", "\"1\"")]), keeping: isKept))
        #expect(!stored.equalsFields(of: HTTPHeaders([("ETag", "\"1\""), ("Content-Type", "text/plain"), ("Age", "1")]), keeping: isKept))
    }

    @Test("comparing kept fields in place agrees with comparing the filtered lists, for 20,000 random pairs")
    func equalsKeptFieldsAgreesWithFiltering() {
        var random = SeededGenerator(seed: 0xF1E1D5)
        // Two spellings of one accented name: equal as Strings, different as field names.
        let names = ["ETag", "etag", "Date", "DATE", "Age", "Content-Type", "Vary", "X-A", "X-\u{E9}", "X-e\u{301}"]
        let values = ["1", "2", ""]
        let isKept = { (name: String) in !HTTPHeaders.equal(name, "Date") && !HTTPHeaders.equal(name, "Age") }
        func randomHeaders() -> HTTPHeaders {
            HTTPHeaders(
                (0..<Int.random(in: 0...5, using: &random)).map { _ in
                    (names.randomElement(using: &random)!, values.randomElement(using: &random)!)
                })
        }
        func filtered(_ headers: HTTPHeaders) -> HTTPHeaders {
            HTTPHeaders(headers.filter { isKept($0.name) }.map { ($0.name, $0.value) })
        }
        for _ in 0..<20_000 {
            let first = randomHeaders()
            // Half the pairs start from the same fields, so that equal answers are common too.
            let second = Bool.random(using: &random) ? randomHeaders() : HTTPHeaders(first.map { ($0.name, $0.value) })
            #expect(first.equalsFields(of: second, keeping: isKept) == (filtered(first) == filtered(second)))
        }
    }

    @Test("the same fields in the same order are compared without asking which are kept")
    func equalsKeptFieldsAsksOnlyWhereTheyDiffer() {
        let stored = HTTPHeaders([("Server", "nginx"), ("Date", "day 1"), ("ETag", "\"1\"")])
        let sameDate = HTTPHeaders([("Server", "nginx"), ("Date", "day 1"), ("ETag", "\"1\"")])
        let newDate = HTTPHeaders([("Server", "nginx"), ("Date", "day 2"), ("ETag", "\"1\"")])
        var asked: [String] = []
        let isKept = { (name: String) -> Bool in
            asked.append(name)
            return !HTTPHeaders.equal(name, "Date")
        }
        #expect(stored.equalsFields(of: sameDate, keeping: isKept))
        #expect(asked.isEmpty)
        #expect(stored.equalsFields(of: newDate, keeping: isKept))
        #expect(asked == ["Date", "Date"])
    }

    @Test("an unchanged copy shares its fields' storage; a changed one does not, and equality holds either way")
    func sharedStorage() {
        let original = HTTPHeaders([("ETag", "\"1\""), ("Date", "day 1")])
        var copy = original
        #expect(copy.sharesStorage(with: original) && copy == original)
        copy.setValue("day 2", at: 1)
        #expect(!copy.sharesStorage(with: original) && copy != original)
        #expect(copy.map(\.name) == ["ETag", "Date"] && copy["Date"] == "day 2" && original["Date"] == "day 1")
        let rebuilt = HTTPHeaders([("ETag", "\"1\""), ("Date", "day 1")])
        #expect(!rebuilt.sharesStorage(with: original) && rebuilt == original)
    }

    @Test("removing fields by name keeps the others in order, repeats and spelling included")
    func removingFields() {
        let headers = HTTPHeaders([("A", "1"), ("Date", "d"), ("a", "2"), ("B", "3"), ("date", "e")])
        let kept = headers.removingFields { HTTPHeaders.equal($0, "date") }
        #expect(kept.map { "\($0.name)=\($0.value)" } == ["A=1", "a=2", "B=3"])
        #expect(headers.removingFields { _ in false } == headers)
        #expect(headers.removingFields { _ in true }.isEmpty)
    }

    @Test("a value containing CR, LF or NUL is refused", arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"])
    func injectionRefused(value: String) {
        #expect(throws: HTTPHeaderError.self) { try HTTPHeaders.validate(name: "X-Test", value: value) }
        #expect(throws: HTTPHeaderError.self) { try HTTPHeaders([("X-Test", value)]).validate() }
    }

    @Test("every byte is a token character exactly when RFC 9110's tchar says so")
    func tokenCharacters() {
        // The reference, spelled as the RFC spells it: ALPHA, DIGIT and fifteen marks.
        let marks = Set("!#$%&'*+-.^_`|~".utf8)
        for byte in UInt8.min...UInt8.max {
            let isAlphanumeric = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            #expect(HTTPHeaders.isTokenCharacter(byte) == (isAlphanumeric || marks.contains(byte)), "byte \(byte)")
        }
        #expect(throws: Never.self) { try HTTPHeaders.validate(name: "X-!#$%&'*+-.^_`|~", value: "v") }
    }

    @Test("a name that is not an RFC 9110 token is refused", arguments: ["", "Bad Name", "X-A\r\nB", "Colon:", "é"])
    func badNames(name: String) {
        #expect(throws: HTTPHeaderError.invalidName(name)) { try HTTPHeaders.validate(name: name, value: "v") }
    }

    @Test(
        "names and values are judged alike, short or long",
        arguments: [("X-Test", "a"), ("X-A-Much-Longer-Header-Name", "a value longer than fifteen bytes, é")])
    func shortAndLongStrings(name: String, value: String) throws {
        // Short strings live inline and long ones on the heap: each is read in place.
        try HTTPHeaders.validate(name: name, value: value)
        for forbidden: UInt8 in [0x00, 0x0A, 0x0D, 0x1F, 0x7F] {
            let bad = value + String(UnicodeScalar(forbidden)) + value
            #expect(throws: HTTPHeaderError.invalidValue(name: name, byte: forbidden)) {
                try HTTPHeaders.validate(name: name, value: bad)
            }
        }
        let badName = name + " " + name
        #expect(throws: HTTPHeaderError.invalidName(badName)) { try HTTPHeaders.validate(name: badName, value: value) }
    }

    @Test("a value with several forbidden bytes is reported by its first")
    func firstForbiddenByte() {
        #expect(throws: HTTPHeaderError.invalidValue(name: "X", byte: 0x0D)) { try HTTPHeaders.validate(name: "X", value: "a\r\nb") }
        #expect(throws: HTTPHeaderError.invalidValue(name: "X", byte: 0x7F)) { try HTTPHeaders.validate(name: "X", value: "\u{7F}\u{0}") }
    }

    @Test("the byte-by-byte walk, which a string without contiguous UTF-8 takes, judges as the in-place read does")
    func byteWalk() {
        // On Linux every String has contiguous UTF-8 (Foundation hands bridged strings back
        // native), so the walk is exercised on `String.UTF8View` directly.
        #expect(HTTPHeaders.isToken("X-!#$%&'*+-.^_`|~09azAZ".utf8))
        for name in ["", "Bad Name", "é", "Colon:", "X-A\r\nB"] {
            #expect(!HTTPHeaders.isToken(name.utf8), "\(name.debugDescription)")
        }
        #expect(HTTPHeaders.firstForbiddenValueByte(in: "a\tb, c=\"d\"; é".utf8) == nil)
        #expect(HTTPHeaders.firstForbiddenValueByte(in: "a\r\nb".utf8) == 0x0D)
        #expect(HTTPHeaders.firstForbiddenValueByte(in: "ok\u{1F}\u{0}".utf8) == 0x1F)
        #expect(HTTPHeaders.firstForbiddenValueByte(in: "\u{7F}\n".utf8) == 0x7F)
    }

    @Test("ordinary values and tabs are accepted")
    func validValues() throws {
        try HTTPHeaders.validate(name: "X-Test", value: "a\tb, c=\"d\"; é")
        try HTTPHeaders.validate(name: "!#$%&'*+-.^_`|~09azAZ", value: "")
    }

    @Test("the error explains what was refused and that nothing was sent")
    func errorMessage() {
        let error = HTTPHeaderError.invalidValue(name: "X-Test", byte: 0x0D)
        #expect(error.description.contains("X-Test"))
        #expect(error.description.contains("0xD"))
        #expect(error.description.contains("not sent"))
    }
}

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test("GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent; POST and PATCH are not")
    func idempotency() {
        for method in [HTTPMethod.get, .head, .options, .trace, .put, .delete] { #expect(method.isIdempotent) }
        for method in [HTTPMethod.post, .patch, "CONNECT"] { #expect(!method.isIdempotent) }
    }

    @Test("only GET, HEAD, OPTIONS and TRACE are safe")
    func safety() {
        for method in [HTTPMethod.get, .head, .options, .trace] { #expect(method.isSafe) }
        for method in [HTTPMethod.put, .delete, .post, .patch] { #expect(!method.isSafe) }
    }
}
