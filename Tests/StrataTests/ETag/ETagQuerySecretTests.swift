#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// A token in a URL's query (`?access_token=`, `api_key`, `sig`) is part of the store key, but
/// what a store persists holds the key's digest and a redacted URL only.
@Suite("ETag stores persist no query-string secret")
struct ETagQuerySecretTests {
    let url = "https://api.example.com/files/7?access_token=AT-91f0e2&api_key=AK-44c7d1&sig=SG-0b8e3a&page=2"
    let secrets = ["AT-91f0e2", "AK-44c7d1", "SG-0b8e3a"]

    func origin() -> ClosureTransport {
        ClosureTransport { request in
            HTTPResponse(
                statusCode: 200, headers: ["ETag": "\"f7\"", "Vary": "Accept"], body: Data("file".utf8),
                url: request.url)
        }
    }

    @Test("FileETagStore: no file holds a query secret, and a second request is still a 304 served from disk")
    func notOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let origin = origin()
        _ = try await ETagTransport(inner: origin, store: store).send(makeRequest(url, headers: ["Accept": "text/plain"]))

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
            .filter { $0 != FileETagStore.keyFileName }
        #expect(names.count == 2, "the primary and the variant entry")
        for name in names {
            let bytes = try Data(contentsOf: directory.storeURL.appendingPathComponent(name))
            for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)") }
            #expect(bytes.range(of: Data("page=2".utf8)) != nil, "the URL is stored, redacted")
        }
        let reader = try FileETagStore(directory: directory.storeURL)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(await reader.cachedResponse(for: key)?.body == Data("file".utf8), "the digest finds the entry")
    }

    @Test("InMemoryETagStore keeps entries as they are, its URL included: nothing of it is persisted")
    func memoryUnchanged() async throws {
        let store = InMemoryETagStore()
        _ = try await ETagTransport(inner: origin(), store: store).send(makeRequest(url, headers: ["Accept": "text/plain"]))
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(url))
        #expect(key.contains("access_token=AT-91f0e2"), "the key is the URL, as before")
        #expect(await store.cachedResponse(for: key)?.url?.absoluteString == url)
    }
}
