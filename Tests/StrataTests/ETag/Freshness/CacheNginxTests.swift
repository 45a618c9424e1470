#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TLSTestServer

/// ETagTransport's freshness against a real origin: nginx serving static files with `expires`,
/// `add_header Cache-Control` and `etag on`, over plain HTTP through URLSessionTransport. Its
/// access log counts what reached the origin. Ages are measured on a test clock whose wall time
/// starts at a whole second, so nginx's `Date` (whole seconds, never earlier) adds no apparent age.
@Suite("ETagTransport freshness against nginx", .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
struct CacheNginxTests {
    private static let directives = """
        location /expires { expires 2s; etag on; }
        location /no-cache { add_header Cache-Control "no-cache"; etag on; }
        location /stale-if-error { add_header Cache-Control "max-age=1, stale-if-error=60"; etag on; }
        location /ping { return 204; }
        """
    // Computed, not stored: a static dictionary of Data is reported by LeakSanitizer.
    private static var files: [String: Data] {
        [
            "expires": Data("fresh for two seconds".utf8), "no-cache": Data("always asked".utf8),
            "stale-if-error": Data("kept through an outage".utf8),
        ]
    }

    private func transport(_ clock: TestClock, events: RecordingObserver = RecordingObserver()) -> any Transport {
        let origin = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        return events.observing(
            ETagTransport(
                inner: URLSessionTransport(requestTimeout: .seconds(10)), clock: clock,
                wallClockOrigin: origin))
    }

    private func requestLines(_ server: NginxServer, _ path: String) -> [String] {
        server.accessLog.filter { $0.contains("\"GET \(path) ") }
    }

    /// The access log lines for `path` of every request nginx answered so far. nginx writes a
    /// request's line just after sending its response, so the client can be faster than the log;
    /// but its one worker handles a later request only after it has logged the earlier ones, so
    /// once a `/ping` is answered, every earlier line is there.
    private func settledRequestLines(_ server: NginxServer, _ path: String) async throws -> [String] {
        _ = try await URLSessionTransport(requestTimeout: .seconds(10)).send(HTTPRequest(url: server.url("/ping")))
        return requestLines(server, path)
    }

    @Test("§4.2.1 a max-age=2 response (nginx expires 2s) is served with no network for 2 s and revalidated after, with a 304")
    func expiresTwoSeconds() async throws {
        let server = try await NginxServer.start(tls: false, directives: Self.directives, files: Self.files)
        let clock = TestClock()
        let cache = transport(clock)
        let first = try await cache.send(HTTPRequest(url: server.url("/expires")))
        #expect(first.source == .network && first.headers["Cache-Control"] == "max-age=2")
        clock.advance(by: .milliseconds(1_999))
        let fresh = try await cache.send(HTTPRequest(url: server.url("/expires")))
        #expect(fresh.source == .fresh && fresh.text == "fresh for two seconds" && fresh.headers["Age"] == "1")
        #expect(try await settledRequestLines(server, "/expires").count == 1, "the access log is unchanged while the response is fresh")
        clock.advance(by: .milliseconds(1))
        let revalidated = try await cache.send(HTTPRequest(url: server.url("/expires")))
        #expect(revalidated.source == .revalidated && revalidated.text == "fresh for two seconds")
        let lines = try await settledRequestLines(server, "/expires")
        #expect(lines.count == 2 && lines.last?.contains("\" 304 ") == true, "\(lines)")
    }

    @Test("§5.2.2.4 a no-cache response (nginx add_header) is revalidated on every use")
    func noCache() async throws {
        let server = try await NginxServer.start(tls: false, directives: Self.directives, files: Self.files)
        let cache = transport(TestClock())
        _ = try await cache.send(HTTPRequest(url: server.url("/no-cache")))
        #expect(try await cache.send(HTTPRequest(url: server.url("/no-cache"))).source == .revalidated)
        #expect(try await cache.send(HTTPRequest(url: server.url("/no-cache"))).source == .revalidated)
        #expect(try await settledRequestLines(server, "/no-cache").map { $0.contains("\" 304 ") } == [false, true, true])
    }

    /// Kills nginx with SIGKILL, as an outage would, without waiting for it: a request that still
    /// reaches the dying process fails too.
    private func kill(_ server: NginxServer) throws {
        let pid = try #require(server.lines(of: "nginx.pid").first.flatMap { pid_t($0) })
        #expect(Glibc.kill(pid, SIGKILL) == 0)
    }

    @Test("RFC 5861 §4 stale-if-error: with nginx killed, the stale response answers, reported as an event")
    func staleIfErrorThroughKilledUpstream() async throws {
        let server = try await NginxServer.start(tls: false, directives: Self.directives, files: Self.files)
        let clock = TestClock()
        let events = RecordingObserver()
        let cache = transport(clock, events: events)
        let url = server.url("/stale-if-error")
        _ = try await cache.send(HTTPRequest(url: url))
        try kill(server)
        clock.advance(by: .seconds(5))
        let stale = try await cache.send(HTTPRequest(url: url))
        #expect(stale.source == .stale && stale.text == "kept through an outage" && stale.headers["Age"] == "5")
        let reasons = events.events(ETagEvent.self).compactMap { event -> ETagEvent.StaleReason? in
            if case .servedStale(_, _, let reason) = event { reason } else { nil }
        }
        #expect(reasons.count == 1)
        if case .originFailed = reasons.first {} else { Issue.record("not a stale-if-error answer: \(reasons)") }
        clock.advance(by: .seconds(60))
        await #expect(throws: TransportError.self) { try await cache.send(HTTPRequest(url: url)) }
    }
}
