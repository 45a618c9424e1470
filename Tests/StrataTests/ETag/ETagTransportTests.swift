#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETagTransport over a scripted origin")
struct ETagTransportTests {
    let url = "https://api.example.com/items/1"

    @Test("the second GET is conditional and a 304 yields the stored body as a revalidated 200")
    func revalidates() async throws {
        let resource = VersionedResource()
        let origin = ClosureTransport { resource.respond($0) }
        let events = RecordingObserver()
        let transport = events.observing(ETagTransport(inner: origin))

        let first = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))

        #expect(first.source == .network && first.text == "body v1 for anonymous in any")
        #expect(second.statusCode == 200 && second.source == .revalidated && second.body == first.body)
        #expect(await origin.recordedRequests[0].headers["If-None-Match"] == nil)
        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == resource.etag(for: makeRequest(url)))
        let target = try #require(URL(string: url))
        #expect(
            events.events(ETagEvent.self) == [
                .miss(target), .stored(target, bodyBytes: first.body.count),
                .validating(target, etag: resource.etag(for: makeRequest(url)), lastModified: nil),
                .revalidated(target, bodyBytes: first.body.count),
            ])
    }

    @Test("a changed resource's 200 replaces the entry and the next GET validates the new ETag")
    func changedResourceReplacesEntry() async throws {
        let resource = VersionedResource()
        let origin = ClosureTransport { resource.respond($0) }
        let transport = ETagTransport(inner: origin)
        _ = try await transport.send(makeRequest(url))
        resource.change()
        let changed = try await transport.send(makeRequest(url))
        let again = try await transport.send(makeRequest(url))
        #expect(changed.source == .network && changed.text == "body v2 for anonymous in any")
        #expect(again.source == .revalidated && again.text == "body v2 for anonymous in any")
        #expect(await origin.recordedRequests[2].headers["If-None-Match"] == resource.etag(for: makeRequest(url)))
    }

    @Test("two users never see each other's body: the second user's GET is not even conditional")
    func twoUserPartition() async throws {
        // A careless origin that answers 304 to any matching ETag, whoever asks, would expose a
        // shared cache; with partitioned keys Bob never sends Alice's validator.
        let origin = ClosureTransport { request in
            if request.headers["If-None-Match"] == "\"shared\"" {
                return HTTPResponse(statusCode: 304, headers: ["ETag": "\"shared\""])
            }
            let who = request.headers["Authorization"] ?? "nobody"
            return makeResponse("private data of \(who)", headers: ["ETag": "\"shared\""])
        }
        let transport = ETagTransport(inner: origin)
        let alice = try await transport.send(makeRequest(url, headers: ["Authorization": "Bearer alice"]))
        let bob = try await transport.send(makeRequest(url, headers: ["Authorization": "Bearer bob"]))
        let aliceAgain = try await transport.send(makeRequest(url, headers: ["Authorization": "Bearer alice"]))

        #expect(alice.text == "private data of Bearer alice")
        #expect(bob.text == "private data of Bearer bob" && bob.source == .network)
        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
        #expect(aliceAgain.text == "private data of Bearer alice" && aliceAgain.source == .revalidated)
    }

    @Test("an entry evicted while its conditional request is in flight still answers the 304")
    func evictedBeforeNotModified() async throws {
        let store = InMemoryETagStore()
        let resource = VersionedResource()
        let origin = ClosureTransport { request in
            if request.headers["If-None-Match"] != nil { await store.removeAll() }
            return resource.respond(request)
        }
        let transport = ETagTransport(inner: origin, store: store)
        let first = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(await origin.recordedRequests.count == 2)
        #expect(second.source == .revalidated && second.body == first.body)
        #expect(await store.count == 1)
    }

    @Test("a 304 that does not match the entry is re-sent once without conditional headers")
    func mismatchedNotModifiedResends() async throws {
        let calls = LockedValue(0)
        let origin = ClosureTransport { request in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            switch call {
            case 1: return makeResponse("old", headers: ["ETag": "\"1\""])
            case 2: return HTTPResponse(statusCode: 304, headers: ["ETag": "\"other\""])
            default: return makeResponse("new", headers: ["ETag": "\"2\""])
            }
        }
        let events = RecordingObserver()
        let transport = events.observing(ETagTransport(inner: origin))
        _ = try await transport.send(makeRequest(url))
        let response = try await transport.send(makeRequest(url))
        #expect(response.statusCode == 200 && response.text == "new" && response.source == .network)
        #expect(await origin.recordedRequests.count == 3)
        #expect(await origin.recordedRequests[2].headers["If-None-Match"] == nil)
        #expect(events.events(ETagEvent.self).contains(.validatorMismatch(try #require(URL(string: url)))))
    }

    @Test("a 304 to a request that carried no validator is an error, never handed to the caller")
    func unaskedNotModifiedThrows() async throws {
        let origin = ClosureTransport { _ in HTTPResponse(statusCode: 304) }
        let transport = ETagTransport(inner: origin)
        await #expect {
            _ = try await transport.send(makeRequest(url))
        } throws: { error in
            (error as? TransportError)?.kind == .invalidResponse
        }
    }

    @Test("with nothing stored, the caller's own If-None-Match reaches the origin untouched and gets the bare 304")
    func callerConditionalPassesThrough() async throws {
        let resource = VersionedResource()
        let origin = ClosureTransport { resource.respond($0) }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        let etag = resource.etag(for: makeRequest(url))
        let response = try await transport.send(makeRequest(url, headers: ["If-None-Match": etag]))
        #expect(response.statusCode == 304 && response.body.isEmpty)
        #expect(await origin.recordedRequests.first?.headers["If-None-Match"] == etag)
        #expect(await store.count == 0)
    }

    @Test("a 304 freshens the stored headers the caller receives, keeping the body's Content-Length")
    func headerFreshening() async throws {
        let calls = LockedValue(0)
        let origin = ClosureTransport { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            if call == 1 {
                return makeResponse("hello", headers: ["ETag": "\"1\"", "Content-Length": "5", "Cache-Control": "no-cache"])
            }
            return HTTPResponse(
                statusCode: 304,
                headers: [
                    "ETag": "\"1\"", "Content-Length": "0",
                    "Cache-Control": "max-age=99", "X-Request-Id": "\(call)",
                ])
        }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        let revalidated = try await transport.send(makeRequest(url))
        #expect(revalidated.headers["Cache-Control"] == "max-age=99")
        #expect(revalidated.headers["X-Request-Id"] == "2")
        #expect(revalidated.headers["Content-Length"] == "5")
        #expect(revalidated.text == "hello")
        // The store was updated too: the freshened headers are what the next 304 starts from.
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await store.cachedResponse(for: key)?.headers["Cache-Control"] == "max-age=99")
    }

    @Test("Vary: each Accept-Language keeps its own variant and validator")
    func varyVariants() async throws {
        let resource = VersionedResource(extraHeaders: ["Vary": "Accept-Language"])
        let origin = ClosureTransport { resource.respond($0) }
        let transport = ETagTransport(inner: origin)
        let english = makeRequest(url, headers: ["Accept-Language": "en"])
        let french = makeRequest(url, headers: ["Accept-Language": "fr"])

        _ = try await transport.send(english)
        _ = try await transport.send(french)
        let englishAgain = try await transport.send(english)
        let frenchAgain = try await transport.send(french)

        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
        #expect(await origin.recordedRequests[2].headers["If-None-Match"] == resource.etag(for: english))
        #expect(await origin.recordedRequests[3].headers["If-None-Match"] == resource.etag(for: french))
        #expect(englishAgain.text == "body v1 for anonymous in en" && englishAgain.source == .revalidated)
        #expect(frenchAgain.text == "body v1 for anonymous in fr" && frenchAgain.source == .revalidated)
    }

    @Test("no-store on the response or the request, and Vary: *, keep the next GET unconditional")
    func neverStored() async throws {
        for (responseHeaders, requestHeaders) in [
            (["Cache-Control": "no-store"] as HTTPHeaders, [:] as [String: String]),
            (["Vary": "*"], [:]),
            ([:], ["Cache-Control": "no-store"]),
        ] {
            let resource = VersionedResource(extraHeaders: responseHeaders)
            let origin = ClosureTransport { resource.respond($0) }
            let store = InMemoryETagStore()
            let transport = ETagTransport(inner: origin, store: store)
            _ = try await transport.send(makeRequest(url, headers: requestHeaders))
            let second = try await transport.send(makeRequest(url, headers: requestHeaders))
            #expect(second.source == .network)
            #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
            #expect(await store.count == 0)
        }
    }

    @Test("a successful POST removes the URL's entry; a failed one does not")
    func invalidationByPost() async throws {
        let postStatus = LockedValue(500)
        let resource = VersionedResource()
        let origin = ClosureTransport { request in
            if request.method.rawValue == "POST" { return HTTPResponse(statusCode: postStatus.withLock { $0 }) }
            return resource.respond(request)
        }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        _ = try await transport.send(makeRequest(url, method: "POST"))
        #expect(await store.count == 1)
        postStatus.withLock { $0 = 201 }
        _ = try await transport.send(makeRequest(url, method: "POST"))
        #expect(await store.count == 0)
        _ = try await transport.send(makeRequest(url))
        #expect(await origin.recordedRequests.last?.headers["If-None-Match"] == nil)
    }

    @Test("a successful DELETE also removes the variant the deleting request selects")
    func invalidationRemovesVariant() async throws {
        let resource = VersionedResource(extraHeaders: ["Vary": "Accept-Language"])
        let origin = ClosureTransport { request in
            request.method.rawValue == "DELETE" ? HTTPResponse(statusCode: 204) : resource.respond(request)
        }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url, headers: ["Accept-Language": "en"]))
        #expect(await store.count == 2)
        _ = try await transport.send(makeRequest(url, method: "DELETE", headers: ["Accept-Language": "en"]))
        #expect(await store.count == 0)
    }

    @Test("HEAD uses the stored validators but never stores a body")
    func headUsesValidators() async throws {
        let resource = VersionedResource()
        let origin = ClosureTransport { resource.respond($0) }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url, method: "HEAD"))
        #expect(await store.count == 0)
        _ = try await transport.send(makeRequest(url))
        let head = try await transport.send(makeRequest(url, method: "HEAD"))
        #expect(await origin.recordedRequests[2].headers["If-None-Match"] == resource.etag(for: makeRequest(url)))
        #expect(head.statusCode == 200 && head.body.isEmpty && head.source == .revalidated)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await store.cachedResponse(for: key)?.body.isEmpty == false)
    }

    @Test("a HEAD that shows a new ETag removes the outdated entry")
    func headInvalidatesOutdatedEntry() async throws {
        let resource = VersionedResource()
        let origin = ClosureTransport { resource.respond($0) }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        resource.change()
        _ = try await transport.send(makeRequest(url, method: "HEAD"))
        #expect(await store.count == 0)
    }

    @Test("a store that loses every write never fails a request")
    func failingStoreIsHarmless() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storeEvents = RecordingObserver()
        let store = try FileETagStore(directory: directory.storeURL)
        try FileManager.default.removeItem(at: directory.storeURL)
        let resource = VersionedResource()
        let transport = storeEvents.observing(ETagTransport(inner: ClosureTransport { resource.respond($0) }, store: store))
        let first = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(first.statusCode == 200 && second.statusCode == 200 && second.text == first.text)
        #expect(storeEvents.events(ETagStoreEvent.self).contains { if case .fileOperationFailed = $0 { true } else { false } })
    }
}

@Suite("ETagTransport edge cases")
struct ETagTransportEdgeCaseTests {
    let url = "https://api.example.com/items/1"

    @Test("a mismatched 304 followed by another 304 to the unconditional resend throws, after one resend")
    func resendsOnlyOnce() async throws {
        let calls = Counter()
        let origin = ClosureTransport { _ in
            calls.increment()
            return calls.value == 1
                ? makeResponse("old", headers: ["ETag": "\"1\""])
                : HTTPResponse(statusCode: 304, headers: ["ETag": "\"2\""])
        }
        let transport = ETagTransport(inner: origin)
        _ = try await transport.send(makeRequest(url))
        await #expect(throws: TransportError.self) { _ = try await transport.send(makeRequest(url)) }
        #expect(await origin.recordedRequests.count == 3)
    }

    @Test("a 200 that may no longer be stored removes the entry it outdates")
    func unstorableReplacementDropsEntry() async throws {
        let calls = Counter()
        let origin = ClosureTransport { _ in
            calls.increment()
            return calls.value == 1
                ? makeResponse("old", headers: ["ETag": "\"1\""])
                : makeResponse("new", headers: ["ETag": "\"2\"", "Cache-Control": "no-store"])
        }
        let store = InMemoryETagStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(second.text == "new")
        #expect(await store.count == 0)
    }

    @Test("only Last-Modified known: the next GET sends If-Modified-Since and a 304 is served")
    func lastModifiedOnly() async throws {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let origin = ClosureTransport { request in
            request.headers["If-Modified-Since"] == date
                ? HTTPResponse(statusCode: 304)
                : makeResponse("dated", headers: ["Last-Modified": date])
        }
        let transport = ETagTransport(inner: origin)
        _ = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(second.text == "dated" && second.source == .revalidated)
        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
    }

    @Test("requests that bypass the store are reported with their reason")
    func passThroughEvents() async throws {
        let events = RecordingObserver()
        let transport = events.observing(ETagTransport(inner: ClosureTransport { _ in makeResponse("x") }))
        _ = try await transport.send(makeRequest(url, method: "OPTIONS"))
        _ = try await transport.send(makeRequest(url, headers: ["Range": "bytes=0-0"]))
        let target = URL(string: url)
        #expect(events.events(ETagEvent.self) == [.passedThrough(target, reason: .method), .passedThrough(target, reason: .range)])
    }
}

@Suite("ETagTransport write-backs after a 304")
struct ETagWriteBackTests {
    let url = "https://api.example.com/items/1"

    @Test("a 304 that only refreshes Date is served with the new Date but not written back")
    func timestampOnlyNotModified() async throws {
        let calls = Counter()
        let origin = ClosureTransport { _ in
            calls.increment()
            let date = "day \(calls.value)"
            return calls.value == 1
                ? makeResponse("x", headers: ["ETag": "\"1\"", "Date": date])
                : HTTPResponse(statusCode: 304, headers: ["ETag": "\"1\"", "Date": date])
        }
        let store = CountingStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(second.headers["Date"] == "day 2" && second.source == .revalidated)
        #expect(await store.writes == 1)
    }

    @Test("a 200 identical to the stored entry (a server ignoring If-None-Match) is not written again; a changed one is")
    func identicalFullResponseNotWrittenAgain() async throws {
        let calls = Counter()
        let origin = ClosureTransport { _ in
            calls.increment()
            let body = calls.value < 3 ? "same" : "changed"
            return makeResponse(body, headers: ["ETag": calls.value < 3 ? "\"1\"" : "\"2\"", "Date": "day \(calls.value)"])
        }
        let store = CountingStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        let second = try await transport.send(makeRequest(url))
        #expect(second.headers["Date"] == "day 2" && String(decoding: second.body, as: UTF8.self) == "same")
        #expect(await store.writes == 1)
        _ = try await transport.send(makeRequest(url))
        #expect(await store.writes == 2)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await store.cachedResponse(for: key).map { String(decoding: $0.body, as: UTF8.self) } == "changed")
    }

    @Test("a 200 identical to a stored entry whose age is used (max-age) is written again, for its new exchange times")
    func identicalFullResponseWithLifetimeWritten() async throws {
        let origin = ClosureTransport { _ in
            makeResponse("same", headers: ["ETag": "\"1\"", "Cache-Control": "max-age=0"])
        }
        let store = CountingStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        _ = try await transport.send(makeRequest(url))
        #expect(await store.writes == 2)
    }

    @Test("a 200 that drops the stored entry's Expires replaces it, though its body and validator are the same (RFC 9111 §3.2)")
    func identicalFullResponseDroppingExpiresWritten() async throws {
        let calls = Counter()
        let origin = ClosureTransport { _ in
            calls.increment()
            let headers: HTTPHeaders = calls.value == 1 ? ["ETag": "\"1\"", "Expires": "Thu, 01 Jan 2099 00:00:00 GMT"] : ["ETag": "\"1\""]
            return makeResponse("same", headers: headers)
        }
        let store = CountingStore()
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        _ = try await transport.send(makeRequest(url, headers: ["Cache-Control": "no-cache"]))
        #expect(await store.writes == 2)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await store.cachedResponse(for: key)?.headers["Expires"] == nil)
    }

    @Test("an entry evicted in flight is written back even when the 304 changed nothing")
    func evictedEntryIsRestored() async throws {
        let store = CountingStore()
        let resource = VersionedResource()
        let origin = ClosureTransport { request in
            if request.headers["If-None-Match"] != nil { await store.removeAll() }
            return resource.respond(request)
        }
        let transport = ETagTransport(inner: origin, store: store)
        _ = try await transport.send(makeRequest(url))
        _ = try await transport.send(makeRequest(url))
        #expect(await store.writes == 2)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await store.cachedResponse(for: key) != nil)
    }
}
