import Foundation
@testable import Strata
import Testing

/// `repeatsStoredEntry` lets `ETagTransport` skip building an entry for a 200 that only repeats
/// the stored one. It may answer "no" too often (the full decision then runs), never "yes" when
/// storing again would change what is stored or whether it may be stored.
@Suite("A 200 that repeats the stored entry is recognised in place, and nothing else is")
struct RepeatedResponseTests {
    let policy = ConditionalRequestPolicy()
    let url = URL(string: "https://api.example.com/items/1")!
    let request = makeRequest("https://api.example.com/items/1")

    /// What nginx sends for a static JSON file, as a GET's 200.
    func response(_ fields: [(String, String)] = [], body: String = #"{"id":1}"#, status: Int = 200) -> HTTPResponse {
        var headers = HTTPHeaders([
            ("Server", "nginx"), ("Date", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Content-Type", "application/json"),
            ("Connection", "keep-alive"), ("ETag", "\"1\""),
        ])
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: url)
    }

    /// The entry the policy stores for `response()`.
    func stored(_ fields: [(String, String)] = []) throws -> ETagCacheEntry {
        guard case .store(let entry) = policy.storeDecision(for: response(fields), to: request, times: .testExchange) else {
            throw StoreRefused()
        }
        return entry
    }

    struct StoreRefused: Error {}

    func repeats(_ response: HTTPResponse, _ entry: ETagCacheEntry, timesMatter: Bool = false, request: HTTPRequest? = nil) -> Bool {
        policy.repeatsStoredEntry(entry, in: response, to: request ?? self.request, timesMatter: timesMatter)
    }

    @Test("the same response, with a new Date and Age and fields a store never keeps, repeats the entry")
    func sameRepresentation() throws {
        let entry = try stored()
        #expect(repeats(response(), entry))
        var later = response([("Age", "4"), ("Set-Cookie", "session=abc"), ("Keep-Alive", "timeout=5")])
        later.headers["Date"] = "Tue, 02 Jan 2024 00:00:00 GMT"
        #expect(repeats(later, entry))
    }

    @Test("a changed, added, removed or reordered lasting field is not a repeat")
    func lastingFieldsDiffer() throws {
        let entry = try stored()
        var changed = response()
        changed.headers["Content-Type"] = "text/plain"
        #expect(!repeats(changed, entry))
        #expect(!repeats(response([("X-Version", "2")]), entry))
        var removed = response()
        removed.headers.remove(name: "Server")
        #expect(!repeats(removed, entry))
        let reordered = HTTPResponse(
            statusCode: 200,
            headers: HTTPHeaders([
                ("Date", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Server", "nginx"), ("ETag", "\"1\""),
                ("Content-Type", "application/json"),
            ]), body: response().body, url: url)
        #expect(!repeats(reordered, entry))
    }

    @Test("a field that changes whether or how long it may be stored is not a repeat: no-store, Expires, max-age, Vary")
    func storageRulesDiffer() throws {
        let entry = try stored()
        #expect(!repeats(response([("Cache-Control", "no-store")]), entry))
        #expect(!repeats(response([("Expires", "Thu, 01 Jan 2099 00:00:00 GMT")]), entry))
        #expect(!repeats(response([("Cache-Control", "max-age=60")]), entry))
        #expect(!repeats(response([("Vary", "Accept")]), entry))
    }

    @Test("a response carrying a field its Connection names is never a repeat: the full decision drops that field")
    func connectionNamedFieldsAreNeverARepeat() throws {
        var named = response([("X-Trace", "1")])
        named.headers["Connection"] = "X-Trace"
        #expect(!repeats(named, try stored()))
        // Stored from a response that did not name it, the field is in the entry: the new
        // response, which names it, replaces the entry without it.
        let traced = try stored([("X-Trace", "1")])
        #expect(traced.headers["X-Trace"] == "1")
        #expect(!repeats(named, traced))
        #expect(repeats(response([("X-Trace", "1")]), traced))
    }

    @Test("another body, status, URL or method, or an entry whose age is used, is not a repeat")
    func otherParts() throws {
        let entry = try stored()
        #expect(!repeats(response(body: #"{"id":2}"#), entry))
        #expect(!repeats(response(status: 203), entry))
        var moved = response()
        moved.url = URL(string: "https://api.example.com/items/2")
        #expect(!repeats(moved, entry))
        #expect(!repeats(response(), entry, request: makeRequest("https://api.example.com/items/1", method: "HEAD")))
        #expect(!repeats(response(), entry, timesMatter: true))
        var undated = entry
        undated.exchangeTimes = nil
        #expect(!repeats(response(), undated))
    }

    @Test("an entry with Vary, or without a validator, never takes the shortcut")
    func entriesOutsideTheShortcut() throws {
        let varying = try stored([("Vary", "Accept")])
        #expect(!repeats(response([("Vary", "Accept")]), varying))
        let entry = try stored()
        var withoutValidator = entry
        withoutValidator.headers.remove(name: "ETag")
        var plain = response()
        plain.headers.remove(name: "ETag")
        #expect(!repeats(plain, withoutValidator))
    }
}

@Suite("ETagCacheEntry: copies share one storage, and the facts read from the headers follow them")
struct ETagCacheEntryStorageTests {
    @Test("setting the headers reads the Vary names and validators again; other parts keep them")
    func factsFollowHeaders() {
        var entry = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\""]))
        #expect(entry.varyHeaderNames.isEmpty && entry.etag == "\"1\"" && entry.lastModified == nil)
        entry.headers = HTTPHeaders([("Vary", "Accept, X-Tenant"), ("Last-Modified", "A"), ("Content-Encoding", "gzip")])
        #expect(entry.varyHeaderNames == ["accept", "x-tenant", "accept-encoding"])
        #expect(entry.etag == nil && entry.lastModified == "A")
        entry.body = Data("y".utf8)
        entry.url = URL(string: "https://api.example.com/")
        #expect(entry.varyHeaderNames == ["accept", "x-tenant", "accept-encoding"] && entry.lastModified == "A")
    }

    @Test("a copy changed in one part leaves the original as it was, and equality and hashing see every part")
    func valueSemantics() {
        let original = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\""]), exchangeTimes: .testExchange)
        var copy = original
        #expect(copy == original && copy.hashValue == original.hashValue)
        copy.exchangeTimes = nil
        #expect(copy != original && original.exchangeTimes == .testExchange)
        copy = original
        copy.statusCode = 203
        #expect(copy != original && original.statusCode == 200)
        copy = original
        copy.varyingRequestHeaders = ["accept": "text/plain"]
        #expect(copy != original && original.varyingRequestHeaders.isEmpty)
        let rebuilt = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\""]), exchangeTimes: .testExchange)
        #expect(rebuilt == original && rebuilt.hashValue == original.hashValue)
    }
}
