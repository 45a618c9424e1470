#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import Testing

@Suite("ConditionalRequestPolicy: keys, storability, 304 matching and freshening, without I/O")
struct ConditionalRequestPolicyTests {
    let policy = ConditionalRequestPolicy()
    let url = "https://api.example.com/items/1"

    // MARK: Plans

    @Test("GET and HEAD use the store; unsafe methods invalidate; other methods pass through")
    func plans() {
        #expect(policy.plan(for: makeRequest(url)) == .useStore(storesBody: true))
        #expect(policy.plan(for: makeRequest(url, method: "HEAD")) == .useStore(storesBody: false))
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            #expect(policy.plan(for: makeRequest(url, method: method)) == .invalidateOnSuccess)
        }
        #expect(policy.plan(for: makeRequest(url, method: "OPTIONS")) == .passThrough(.method))
    }

    @Test("a request with a precondition only the origin evaluates (RFC 9111 §4.3.2), a Range or no-store passes through")
    func callerConditionalsPassThrough() {
        for name in ["If-Match", "If-Unmodified-Since", "If-Range"] {
            #expect(policy.plan(for: makeRequest(url, headers: [name: "\"x\""])) == .passThrough(.callerConditional))
        }
        #expect(policy.plan(for: makeRequest(url, headers: ["Range": "bytes=0-1"])) == .passThrough(.range))
        #expect(
            policy.plan(for: makeRequest(url, headers: ["Cache-Control": "max-age=0, No-Store"]))
                == .passThrough(.requestNoStore))
        #expect(policy.plan(for: makeRequest(url, headers: ["Cache-Control": "max-age=0"])) == .useStore(storesBody: true))
    }

    @Test("a conditional field is the reason a request passes through, wherever it stands: Range comes with If-Range")
    func conditionalReasonWinsOverRange() {
        let rangeFirst = HTTPRequest(
            url: URL(string: url)!, headers: HTTPHeaders([("Range", "bytes=0-99"), ("If-Range", "\"v1\"")]))
        #expect(policy.plan(for: rangeFirst) == .passThrough(.callerConditional))
        let rangeLast = HTTPRequest(
            url: URL(string: url)!, headers: HTTPHeaders([("If-Range", "\"v1\""), ("Range", "bytes=0-99")]))
        #expect(policy.plan(for: rangeLast) == .passThrough(.callerConditional))
    }

    // MARK: Keys

    @Test("GET and HEAD share a key, the fragment and host case do not matter, the query does")
    func primaryKeyIsMethodIndependent() {
        let get = policy.primaryKey(for: makeRequest(url))
        #expect(get == policy.primaryKey(for: makeRequest(url, method: "HEAD")))
        #expect(get == policy.primaryKey(for: makeRequest("https://API.Example.com/items/1#top")))
        #expect(get != policy.primaryKey(for: makeRequest(url + "?page=2")))
    }

    @Test("two users get different keys, the same user the same key, and no key contains the credential")
    func identityPartition() throws {
        let alice = policy.primaryKey(for: makeRequest(url, headers: ["Authorization": "Bearer alice-secret"]))
        let bob = policy.primaryKey(for: makeRequest(url, headers: ["Authorization": "Bearer bob-secret"]))
        let anonymous = policy.primaryKey(for: makeRequest(url))
        #expect(alice != bob && alice != anonymous && bob != anonymous)
        #expect(alice == policy.primaryKey(for: makeRequest(url, headers: ["Authorization": "Bearer alice-secret"])))
        #expect(!alice.contains("alice-secret") && !alice.contains("Bearer"))
        #expect(policy.primaryKey(for: makeRequest(url, headers: ["Cookie": "session=1"])) != anonymous)
    }

    @Test("the identity partition is a SHA-256 digest of the labelled credential")
    func identityDigest() {
        let partition = policy.identityPartition(of: ["Authorization": "Bearer t"])
        let material = Array("strata-etag-identity\u{0}".utf8) + Array("authorization:8:Bearer t\n".utf8)
        #expect(partition == SHA256.hexDigest(material))
        #expect(partition.count == 64)
    }

    @Test("a variant key carries the request's values for the Vary names; absent and empty differ")
    func variantKeys() {
        let key = "k"
        let english = policy.variantKey(
            primaryKey: key, varyNames: ["accept-language"],
            request: makeRequest(url, headers: ["Accept-Language": "en"]))
        let french = policy.variantKey(
            primaryKey: key, varyNames: ["accept-language"],
            request: makeRequest(url, headers: ["Accept-Language": "fr"]))
        let absent = policy.variantKey(primaryKey: key, varyNames: ["accept-language"], request: makeRequest(url))
        let empty = policy.variantKey(
            primaryKey: key, varyNames: ["accept-language"],
            request: makeRequest(url, headers: ["Accept-Language": ""]))
        #expect(Set([english, french, absent, empty]).count == 4)
        #expect(english.hasPrefix(key))
    }

    @Test("an entry is selected only by requests with the same values for its Vary fields")
    func varySelection() throws {
        let request = makeRequest(url, headers: ["Accept-Language": "en", "Accept": "text/plain"])
        let response = makeResponse("hello", headers: ["ETag": "\"1\"", "Vary": "Accept-Language, accept"])
        guard case .store(let entry) = policy.storeDecision(for: response, to: request, times: .testExchange) else {
            Issue.record("expected the response to be stored")
            return
        }
        #expect(entry.varyHeaderNames == ["accept-language", "accept"])
        #expect(policy.selects(entry, for: request))
        #expect(!policy.selects(entry, for: makeRequest(url, headers: ["Accept-Language": "fr", "Accept": "text/plain"])))
        #expect(!policy.selects(entry, for: makeRequest(url, headers: ["Accept": "text/plain"])))
        let primary = policy.primaryKey(for: request)
        #expect(policy.storageKeys(for: entry, primaryKey: primary, request: request).count == 2)
    }

    @Test(
        "a coded response (Content-Encoding: gzip) without Vary: Accept-Encoding varies on Accept-Encoding anyway: its raw bytes never answer a caller whose transport decodes"
    )
    func contentEncodingVariesOnAcceptEncoding() throws {
        let raw = makeRequest(url, headers: ["Accept-Encoding": "gzip"])
        let response = makeResponse("gzip bytes", headers: ["ETag": "\"1\"", "Content-Encoding": "gzip"])
        guard case .store(let entry) = policy.storeDecision(for: response, to: raw, times: .testExchange) else {
            Issue.record("expected the response to be stored")
            return
        }
        #expect(entry.varyHeaderNames == ["accept-encoding"] && entry.varyingRequestHeaders["accept-encoding"] == "gzip")
        #expect(policy.selects(entry, for: raw))
        #expect(!policy.selects(entry, for: makeRequest(url)))
        // identity is no coding; a Vary that names it already is not repeated.
        let identity = ETagCacheEntry(response: makeResponse("x", headers: ["Content-Encoding": "identity"]))
        let named = ETagCacheEntry(response: makeResponse("x", headers: ["Content-Encoding": "br", "Vary": "Accept-Encoding"]))
        #expect(identity.varyHeaderNames.isEmpty && named.varyHeaderNames == ["accept-encoding"])
    }

    // MARK: Storability

    @Test("GET responses of a storable status with a validator and without no-store or Vary: * are stored")
    func storability() {
        let get = makeRequest(url)
        func decision(_ response: HTTPResponse, _ request: HTTPRequest? = nil) -> ConditionalRequestPolicy.StoreDecision {
            policy.storeDecision(for: response, to: request ?? get, times: .testExchange)
        }
        #expect(decision(makeResponse("x", headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"])) != .doNotStore(.noValidator))
        #expect(decision(makeResponse("x")) == .doNotStore(.noValidator))
        #expect(decision(makeResponse("x", status: 302, headers: ["ETag": "\"1\""])) == .doNotStore(.status))
        #expect(
            decision(makeResponse("x", headers: ["ETag": "\"1\"", "Cache-Control": "private, no-store"]))
                == .doNotStore(.responseNoStore))
        #expect(decision(makeResponse("x", headers: ["ETag": "\"1\"", "Vary": "Accept, *"])) == .doNotStore(.varyStar))
        #expect(decision(makeResponse("x", headers: ["ETag": "\"1\""]), makeRequest(url, method: "HEAD")) == .doNotStore(.head))
    }

    @Test("a server-sent event stream is never stored, even with an ETag and max-age: a 304 would replay old events")
    func eventStreamsAreNotStored() {
        let get = makeRequest(url)
        for type in ["text/event-stream", "Text/Event-Stream; charset=utf-8"] {
            let response = makeResponse("data: 1\n\n", headers: ["ETag": "\"1\"", "Cache-Control": "max-age=60", "Content-Type": type])
            #expect(policy.storeDecision(for: response, to: get, times: .testExchange) == .doNotStore(.eventStream))
        }
        let json = makeResponse("{}", headers: ["ETag": "\"1\"", "Content-Type": "application/json"])
        #expect(policy.storeDecision(for: json, to: get, times: .testExchange) != .doNotStore(.eventStream))
    }

    @Test("stored headers leave out hop-by-hop fields, fields Connection names, and Set-Cookie")
    func storedHeadersAreFiltered() {
        let response = makeResponse(
            "x",
            headers: HTTPHeaders([
                ("ETag", "\"1\""), ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
                ("Set-Cookie", "session=secret"), ("Content-Type", "text/plain"),
            ]))
        guard case .store(let entry) = policy.storeDecision(for: response, to: makeRequest(url), times: .testExchange) else {
            Issue.record("expected the response to be stored")
            return
        }
        // A Date is added when the response had none (RFC 9110 §6.6.1): its age is computed from it.
        #expect(
            entry.headers
                == HTTPHeaders([
                    ("ETag", "\"1\""), ("Content-Type", "text/plain"),
                    ("Date", "Tue, 14 Nov 2023 22:13:20 GMT"),
                ]))
    }

    // MARK: Conditional requests and 304s

    @Test("an ETag becomes If-None-Match; Last-Modified becomes If-Modified-Since only without an ETag")
    func conditionalHeaders() throws {
        let both = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\"", "Last-Modified": "date"]))
        let withETag = try #require(policy.conditionalRequest(makeRequest(url), validating: both))
        #expect(withETag.headers["If-None-Match"] == "\"1\"")
        #expect(withETag.headers["If-Modified-Since"] == nil)
        let dated = ETagCacheEntry(response: makeResponse("x", headers: ["Last-Modified": "date"]))
        let withDate = try #require(policy.conditionalRequest(makeRequest(url), validating: dated))
        #expect(withDate.headers["If-Modified-Since"] == "date")
        #expect(policy.conditionalRequest(makeRequest(url), validating: ETagCacheEntry(response: makeResponse("x"))) == nil)
    }

    @Test("a 304 freshens every stored field it carries except Content-Length and hop-by-hop fields")
    func freshening() throws {
        let entry = ETagCacheEntry(
            response: makeResponse(
                "hello",
                headers: HTTPHeaders([
                    ("ETag", "\"1\""), ("Content-Length", "5"), ("Cache-Control", "max-age=10"),
                    ("Content-Type", "text/plain"), ("X-Old", "a"), ("X-Old", "b"),
                ])))
        let notModified = makeResponse(
            "", status: 304,
            headers: HTTPHeaders([
                ("ETag", "W/\"1\""), ("Content-Length", "0"), ("Cache-Control", "max-age=60"),
                ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("X-Old", "c"), ("Connection", "keep-alive"),
            ]))
        let fresh = try #require(policy.freshenedHeaders(entry, with: notModified))
        #expect(fresh.headers["Content-Length"] == "5")
        #expect(fresh.headers["Cache-Control"] == "max-age=60")
        #expect(fresh.headers["Date"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(fresh.headers["Content-Type"] == "text/plain")
        #expect(fresh.headers.values(for: "X-Old") == ["c"])
        #expect(fresh.headers.map(\.name) == ["ETag", "Content-Length", "Cache-Control", "Content-Type", "X-Old", "Date"])
        #expect(fresh.headers["Connection"] == nil)
        #expect(fresh.etag == "W/\"1\"")
        #expect(fresh.body == entry.body)
    }

    @Test("a 304 that only repeats stored fields leaves the entry as it is; a respelled or changed field still replaces")
    func repeatingNotModified() throws {
        let entry = ETagCacheEntry(
            response: makeResponse("hello", headers: ["ETag": "\"1\"", "Content-Type": "text/plain"]),
            exchangeTimes: .testExchange)
        #expect(policy.freshenedHeaders(entry, with: makeResponse("", status: 304, headers: ["ETag": "\"1\""])) == entry)
        let respelled = try #require(policy.freshenedHeaders(entry, with: makeResponse("", status: 304, headers: ["etag": "\"1\""])))
        #expect(respelled.headers.map(\.name) == ["etag", "Content-Type"])
        let repeated = HTTPHeaders([("ETag", "\"1\""), ("ETag", "\"1\"")])
        #expect(
            try #require(policy.freshenedHeaders(entry, with: makeResponse("", status: 304, headers: repeated))).headers
                .values(for: "ETag") == ["\"1\"", "\"1\""])
        #expect(!policy.needsStoreUpdate(from: entry, to: entry, timesMatter: false))
        #expect(policy.needsStoreUpdate(from: entry, to: respelled, timesMatter: false) == false, "names compare case-insensitively")
    }

    @Test("the usual 304 (the ETag again, a new Date) updates the Date in its place; one that changes nothing shares the entry's fields")
    func usualNotModifiedInPlace() throws {
        let entry = ETagCacheEntry(
            response: makeResponse(
                "hello",
                headers: HTTPHeaders([("Date", "day 1"), ("ETag", "\"1\""), ("Content-Type", "text/plain")])),
            exchangeTimes: .testExchange)
        let notModified = makeResponse(
            "", status: 304,
            headers: HTTPHeaders([("Server", "nginx"), ("Date", "day 2"), ("Connection", "keep-alive"), ("ETag", "\"1\"")]))
        let fresh = try #require(policy.freshenedHeaders(entry, with: notModified))
        // Server is new: it goes at the end, as the general merge puts it.
        #expect(fresh.headers.map(\.name) == ["Date", "ETag", "Content-Type", "Server"])
        #expect(fresh.headers["Date"] == "day 2" && entry.headers["Date"] == "day 1")
        let dateOnly = try #require(
            policy.freshenedHeaders(
                entry, with: makeResponse("", status: 304, headers: HTTPHeaders([("Date", "day 2"), ("ETag", "\"1\"")]))))
        #expect(dateOnly.headers.map(\.name) == ["Date", "ETag", "Content-Type"] && dateOnly.headers["Date"] == "day 2")
        let unchanged = try #require(
            policy.freshened(entry, with: makeResponse("", status: 304, headers: ["ETag": "\"1\"", "Date": "day 1"]), times: .testExchange))
        #expect(unchanged.headers.sharesStorage(with: entry.headers))
        #expect(!policy.needsStoreUpdate(from: entry, to: unchanged, timesMatter: false))
    }

    @Test("a 304 whose ETag or Last-Modified differs from the entry's confirms nothing")
    func mismatchedNotModified() {
        let tagged = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\"", "Last-Modified": "A"]))
        #expect(policy.freshenedHeaders(tagged, with: makeResponse("", status: 304, headers: ["ETag": "\"2\""])) == nil)
        #expect(policy.freshenedHeaders(tagged, with: makeResponse("", status: 304, headers: ["Last-Modified": "B"])) == nil)
        #expect(policy.freshenedHeaders(tagged, with: makeResponse("", status: 304)) != nil)
        let dated = ETagCacheEntry(response: makeResponse("x", headers: ["Last-Modified": "A"]))
        #expect(policy.freshenedHeaders(dated, with: makeResponse("", status: 304, headers: ["ETag": "\"1\""])) == nil)
        #expect(policy.freshenedHeaders(dated, with: makeResponse("", status: 304, headers: ["Last-Modified": "A"])) != nil)
    }

    @Test("a revalidated response is the stored 200, marked revalidated, with no body for HEAD")
    func revalidatedResponse() {
        let entry = ETagCacheEntry(response: makeResponse("hello", headers: ["ETag": "\"1\""]))
        let get = policy.revalidatedResponse(entry, for: makeRequest(url), url: URL(string: url))
        #expect(get.statusCode == 200 && get.text == "hello" && get.source == .revalidated)
        let head = policy.revalidatedResponse(entry, for: makeRequest(url, method: "HEAD"), url: nil)
        #expect(head.body.isEmpty && head.source == .revalidated && head.headers["ETag"] == "\"1\"")
    }

    @Test("a HEAD 200 with a new validator outdates the entry; the same one does not")
    func headOutdates() {
        let entry = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\""]))
        #expect(policy.headResponse(makeResponse("", headers: ["ETag": "\"2\""]), outdates: entry))
        #expect(!policy.headResponse(makeResponse("", headers: ["ETag": "W/\"1\""]), outdates: entry))
        #expect(!policy.headResponse(makeResponse("", status: 503, headers: ["ETag": "\"2\""]), outdates: entry))
    }

    @Test(
        "RFC 9111 §4.3.5 with §4.3.3: a HEAD answered with another status a GET would drop the stored response for (404, 410, a 200 for a stored 404) outdates it; a failure or the same status and validator does not",
        arguments: [
            (stored: 200, head: 404, outdates: true), (stored: 200, head: 410, outdates: true),
            (stored: 404, head: 200, outdates: true), (stored: 404, head: 404, outdates: false),
            (stored: 200, head: 200, outdates: false), (stored: 200, head: 503, outdates: false),
            (stored: 200, head: 400, outdates: false), (stored: 200, head: 304, outdates: false),
        ])
    func headStatusOutdates(stored: Int, head: Int, outdates: Bool) {
        let entry = ETagCacheEntry(response: makeResponse("x", status: stored, headers: ["ETag": "\"1\""]))
        let response = makeResponse("", status: head, headers: ["ETag": "\"1\""])
        #expect(policy.headResponse(response, outdates: entry) == outdates)
        // A HEAD answers as a GET would: what it outdates, a GET's response of that status drops too.
        if outdates { #expect(ConditionalRequestPolicy.outdatesStoredResponse(status: head)) }
    }

    @Test("a successful unsafe request invalidates its URL and same-origin Location and Content-Location")
    func invalidation() {
        #expect(policy.invalidates(makeResponse("", status: 201)) && policy.invalidates(makeResponse("", status: 303)))
        #expect(!policy.invalidates(makeResponse("", status: 409)) && !policy.invalidates(makeResponse("", status: 500)))
        let response = makeResponse(
            "", status: 201,
            headers: [
                "Location": "/items/2", "Content-Location": "https://elsewhere.example.com/items/2",
            ])
        let urls = policy.invalidatedURLs(
            request: makeRequest("https://api.example.com/items", method: "POST"),
            response: response)
        #expect(urls.map(\.absoluteString) == ["https://api.example.com/items", "https://api.example.com/items/2"])
    }

    @Test("an entry survives a Codable round trip with its headers in order")
    func entryCodable() throws {
        let entry = ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200, headers: HTTPHeaders([("A", "1"), ("a", "2")]),
                body: Data([0, 1, 2]), url: URL(string: url)),
            varyingRequestHeaders: ["accept": "x"])
        let decoded = try JSONDecoder().decode(ETagCacheEntry.self, from: JSONEncoder().encode(entry))
        #expect(decoded == entry)
        #expect(decoded.headers.values(for: "a") == ["1", "2"])
    }
}

@Suite("ConditionalRequestPolicy: when a freshened entry is written back")
struct StoreUpdateTests {
    let policy = ConditionalRequestPolicy()
    let stored = ETagCacheEntry(
        response: makeResponse(
            "x",
            headers: [
                "ETag": "\"1\"", "Date": "Mon, 01 Jan 2024 00:00:00 GMT", "Cache-Control": "max-age=10",
            ]), exchangeTimes: .testExchange)

    @Test("a 304 that only brings a new Date, Age or Expires needs no rewrite; any other change does")
    func volatileFieldsOnly() throws {
        let timestamps = try #require(
            policy.freshenedHeaders(
                stored,
                with: makeResponse(
                    "", status: 304,
                    headers: [
                        "ETag": "\"1\"", "Date": "Tue, 02 Jan 2024 00:00:00 GMT", "Age": "3", "Expires": "soon",
                    ])))
        #expect(timestamps.headers["Date"] == "Tue, 02 Jan 2024 00:00:00 GMT")
        #expect(!policy.needsStoreUpdate(from: stored, to: timestamps, timesMatter: false))
        let policyChange = try #require(
            policy.freshenedHeaders(
                stored,
                with: makeResponse(
                    "", status: 304,
                    headers: [
                        "ETag": "\"1\"", "Cache-Control": "max-age=60",
                    ])))
        #expect(policy.needsStoreUpdate(from: stored, to: policyChange, timesMatter: false))
    }
}
