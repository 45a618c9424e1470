import Foundation
@testable import StrataRedis
import Testing

@Suite("RedisEndpoint: redis:// URLs")
struct RedisEndpointTests {
    private func endpoint(_ text: String) throws(RedisETagStoreError) -> RedisEndpoint {
        try RedisEndpoint(url: URL(string: text)!)
    }

    private func reason(_ text: String) -> String? {
        do {
            _ = try endpoint(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("host, port, database, ACL user and a percent-encoded password are read")
    func fullURL() throws {
        let parsed = try endpoint("redis://fleet:p%40ss%3Aword@cache.internal:6380/3")
        #expect(parsed.host == "cache.internal" && parsed.port == 6380 && parsed.database == 3)
        #expect(parsed.user == "fleet" && parsed.password?.value == "p@ss:word")
    }

    @Test("defaults: port 6379, database 0, no credentials; a password alone is the default user's")
    func defaults() throws {
        let plain = try endpoint("redis://localhost")
        #expect(plain.port == 6379 && plain.database == 0 && plain.user == nil && plain.password == nil)
        let passwordOnly = try endpoint("redis://:hunter2@10.0.0.5/")
        #expect(passwordOnly.user == nil && passwordOnly.password?.value == "hunter2" && passwordOnly.database == 0)
        #expect(try endpoint("redis://[::1]:7000").host == "::1")
        #expect(!plain.usesTLS)
        let tls = try endpoint("rediss://:pw@cache.internal:6380/2")
        #expect(tls.usesTLS && tls.host == "cache.internal" && tls.port == 6380 && tls.database == 2)
        #expect(tls.at(RedisNodeAddress(host: "10.0.0.7", port: 7000)!).usesTLS)
    }

    @Test("bad URLs are typed errors that say what to write instead, with the password redacted")
    func invalid() {
        #expect(reason("http://localhost:6379")?.contains("scheme must be redis://") == true)
        #expect(reason("redis://:pw@localhost/x")?.contains("database number") == true)
        #expect(reason("redis://:pw@localhost/1/2")?.contains("database number") == true)
        #expect(reason("redis://localhost:0")?.contains("port must be between") == true)
        #expect(reason("redis://fleet@localhost")?.contains("a user name needs a password") == true)
        #expect(reason("redis://localhost?password=pw")?.contains("query or fragment") == true)
        #expect(reason("redis:///0")?.contains("names no host") == true)
        for text in [
            "rediss://fleet:TopSecret@localhost/x", "redis://:TopSecret@localhost/x",
            "redis://TopSecret@localhost", "redis://localhost?password=TopSecret",
        ] {
            let message = reason(text) ?? ""
            #expect(!message.isEmpty && !message.contains("TopSecret"), "\(message)")
        }
    }

    @Test(
        "a password pasted without percent-encoding is invalidURL, and no part of it shows in the error",
        arguments: [
            // Not "9/" alone: the real port and database, ":6379/2", are shown and hold it.
            ("redis://:Xy@9/kQ2v@cache.internal:6379/2", ["kQ2v", "@9/", "9/kQ2v", "Xy"]),
            ("redis://default:1234/secret@cache:6379", ["1234", "secret", "default"]),
        ])
    func unencodedPassword(url: String, secrets: [String]) {
        let error = #expect(throws: RedisETagStoreError.self) { try endpoint(url) }
        guard case .invalidURL(let shown, _)? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        for text in [shown, error?.description ?? "", error?.localizedDescription ?? ""] {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
        #expect(error?.description.contains("%2F") == true, "\(String(describing: error))")
    }

    @Test("the endpoint and its password print without the password, also through dump")
    func printing() throws {
        let parsed = try endpoint("redis://fleet:TopSecret@[::1]:7000/2")
        #expect(parsed.description == "[::1]:7000/2")
        var dumped = ""
        dump(parsed, to: &dumped)
        #expect(!dumped.contains("TopSecret") && !"\(parsed.password!)".contains("TopSecret"))
        #expect(!String(reflecting: parsed.password!).contains("TopSecret"))
    }
}
