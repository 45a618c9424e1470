#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETag keys never hold URL userinfo, and userinfo still separates identities")
struct ETagUserinfoKeyTests {
    @Test("the primary key has no user or password, but two users get different keys")
    func keyWithoutUserinfo() throws {
        let policy = ConditionalRequestPolicy()
        let alice = policy.primaryKey(for: HTTPRequest(url: URL(string: "https://alice:pa55@api.example.com/r")!))
        let bob = policy.primaryKey(for: HTTPRequest(url: URL(string: "https://bob:other@api.example.com/r")!))
        let anonymous = policy.primaryKey(for: HTTPRequest(url: URL(string: "https://api.example.com/r")!))
        for key in [alice, bob] {
            #expect(!key.contains("pa55") && !key.contains("alice") && !key.contains("bob") && !key.contains("other"))
        }
        #expect(alice != bob && alice != anonymous)
    }

    @Test("FileETagStore writes no userinfo to disk, whatever key it is given")
    func nothingOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let url = URL(string: "https://alice:pa55w0rd@api.example.com/r")!
        let inner = ClosureTransport { _ in HTTPResponse(statusCode: 200, headers: ["ETag": "\"1\""], body: Data("b".utf8), url: url) }
        _ = try await ETagTransport(inner: inner, store: store).send(URLRequest(url: url))
        await store.store(
            ETagCacheEntry(response: HTTPResponse(statusCode: 200, headers: ["ETag": "\"1\""], url: url)),
            for: "etag-v1 https://alice:pa55w0rd@api.example.com/other id=-")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
        #expect(!names.isEmpty)
        for name in names {
            let contents = try Data(contentsOf: directory.storeURL.appendingPathComponent(name))
            #expect(contents.range(of: Data("pa55w0rd".utf8)) == nil, "\(name) holds the password")
        }
    }
}
