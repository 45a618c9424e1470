#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("LoggingTransport and redaction")
struct LoggingTransportTests {
    static let secrets = ["s3cr3t-bearer", "proxy-pass-9", "cookie-value-7", "set-cookie-value-5", "query-token-3"]

    func secretRequest() -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/items?access_token=query-token-3&page=2")!)
        request.setValue("Bearer s3cr3t-bearer", forHTTPHeaderField: "Authorization")
        request.setValue("Basic proxy-pass-9", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("session=cookie-value-7", forHTTPHeaderField: "Cookie")
        request.httpMethod = "POST"
        request.httpBody = Data("password=body-secret".utf8)
        return request
    }

    func routes(_ route: CannedRoute) -> CannedRoutesTransport { CannedRoutesTransport(routes: [route]) }

    @Test("a request logs its start and its response with status, duration, size and source")
    func startAndResponse() async throws {
        let logger = RecordingLogger()
        let transport = LoggingTransport(inner: CannedResponseTransport(string: "hello", statusCode: 201), logger: logger)
        _ = try await transport.send(URLRequest(url: URL(string: "https://api.example.com/a")!))
        #expect(logger.eventNames == ["request.start", "request.response"])
        let start = logger.entries[0].metadata, response = logger.entries[1].metadata
        #expect(start["method"] == "GET")
        #expect(start["url"] == "https://api.example.com/a")
        #expect(response["status"] == "201")
        #expect(response["body_bytes"] == "5")
        #expect(response["source"] == "network")
        #expect(response["duration_ms"] != nil)
        #expect(start["request"] == response["request"])
        #expect(start["request"]?.count == 8)
        #expect(logger.entries.allSatisfy { $0.metadata["attempt"] == "1" })
    }

    @Test("every secret is redacted in every event, including errors")
    func secretsRedacted() async throws {
        let logger = RecordingLogger()
        let failing = routes(
            CannedRoute(
                pattern: RequestPattern(pathRegex: ".*"),
                error: TransportError(
                    .connectionLost, url: URL(string: "https://api.example.com/items?access_token=query-token-3"),
                    message: "peer reset while sending Bearer s3cr3t-bearer")))
        await #expect(throws: TransportError.self) {
            try await LoggingTransport(inner: failing, logger: logger).send(secretRequest())
        }
        let answering = CannedResponseTransport(
            response: CannedResponse(
                string: "ok", headers: ["Set-Cookie": "id=set-cookie-value-5; HttpOnly"]))
        _ = try await LoggingTransport(inner: answering, logger: logger).send(secretRequest())

        #expect(logger.eventNames == ["request.start", "request.failure", "request.start", "request.response"])
        for secret in Self.secrets { #expect(!logger.text.contains(secret), "\(secret) leaked") }
        #expect(logger.text.contains("Bearer <redacted>"))
        #expect(logger.text.contains("access_token=<redacted>&page=2"))
        #expect(logger.text.contains("Set-Cookie: id=<redacted>; HttpOnly"))
        #expect(logger.entries[1].metadata["error_kind"] == "connection lost")
    }

    @Test("extra headers and query parameters can be redacted")
    func extraRedaction() async throws {
        let logger = RecordingLogger()
        var request = URLRequest(url: URL(string: "https://api.example.com/?tenant=acme-secret")!)
        request.setValue("private-value", forHTTPHeaderField: "X-Tenant-Key")
        let transport = LoggingTransport(
            inner: CannedResponseTransport(string: ""), logger: logger,
            redaction: Redaction(extraHeaders: ["X-Tenant-Key"], extraQueryParameters: ["tenant"]))
        _ = try await transport.send(request)
        #expect(!logger.text.contains("private-value"))
        #expect(!logger.text.contains("acme-secret"))
    }

    @Test("bodies are not logged by default")
    func noBodiesByDefault() async throws {
        let logger = RecordingLogger()
        _ = try await LoggingTransport(inner: CannedResponseTransport(string: "response-body-text"), logger: logger)
            .send(secretRequest())
        #expect(!logger.text.contains("body-secret"))
        #expect(!logger.text.contains("response-body-text"))
        #expect(logger.entries.allSatisfy { $0.metadata["body"] == nil })
    }

    @Test("bodies are logged truncated when explicitly enabled")
    func truncatedBodies() async throws {
        let logger = RecordingLogger()
        let body = String(repeating: "x", count: 100)
        _ = try await LoggingTransport(
            inner: CannedResponseTransport(string: body), logger: logger,
            bodies: .truncated(maxBytes: 10)
        ).send(URLRequest(url: URL(string: "https://a.example/")!))
        #expect(logger.entries[1].metadata["body"] == String(repeating: "x", count: 10) + "…(100 bytes)")
    }

    @Test("a disabled level formats nothing and logs nothing")
    func disabledLevelCostsNothing() async throws {
        final class CountingLogger: StrataLogger {
            let calls = LockedValue(0)
            func isEnabled(_ level: LogLevel) -> Bool { false }
            func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) { calls.withLock { $0 += 1 } }
        }
        let logger = CountingLogger()
        _ = try await LoggingTransport(inner: CannedResponseTransport(string: "x"), logger: logger).send(secretRequest())
        #expect(logger.calls.withLock { $0 } == 0)

        let evaluated = LockedValue(false)
        func expensive() -> String { evaluated.withLock { $0 = true }; return "built" }
        logger.log(.debug, expensive(), metadata: ["k": expensive()])
        #expect(!evaluated.withLock { $0 })
    }

    @Test("a logger that takes no level steps aside: events below it are not even built")
    func silentLoggerStepsAside() async throws {
        struct Silent: StrataLogger {
            func isEnabled(_ level: LogLevel) -> Bool { false }
            func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {}
        }
        /// Reports one event per request, counting the times the event is built.
        struct Reporting: Transport {
            let inner: any Transport
            let built: LockedValue<Int>
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                TransportEvents.emit(
                    {
                        built.withLock { $0 += 1 }; return ReauthEvent.started
                    }())
                return try await inner.send(request)
            }
        }
        let built = LockedValue(0)
        let stack = LoggingTransport(
            inner: Reporting(inner: CannedResponseTransport(string: "x"), built: built),
            logger: Silent())
        #expect(try await stack.send(secretRequest()).text == "x")
        #expect(built.withLock { $0 } == 0)
        // A logger that takes any one level observes as before.
        let recording = LoggingTransport(
            inner: Reporting(inner: CannedResponseTransport(string: "x"), built: built),
            logger: RecordingLogger())
        _ = try await recording.send(secretRequest())
        #expect(built.withLock { $0 } == 1)
    }

    @Test("without an observer, emitting an event builds nothing")
    func emitWithoutObserver() {
        let evaluated = LockedValue(false)
        func event() -> any TransportEvent { evaluated.withLock { $0 = true }; return ReauthEvent.started }
        TransportEvents.emit(event())
        #expect(!TransportEvents.isObserved)
        #expect(!evaluated.withLock { $0 })
    }

    @Test("events from layers below carry the request identifier and their attempt number")
    func layerEvents() async throws {
        /// A layer that reports a retry and sends twice, as RetryTransport does.
        struct TwiceLayer: Transport {
            let inner: any Transport
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                _ = try await inner.send(request)
                TransportEvents.emit(
                    RetryEvent.scheduled(
                        retry: 1, delay: .milliseconds(250), reason: .status(503),
                        delaySource: .backoff, method: .get, url: request.url))
                return try await TransportEvents.withNextAttempt { try await inner.send(request) }
            }
        }
        let logger = RecordingLogger()
        let perAttempt = LoggingTransport(inner: CannedResponseTransport(string: "ok"), logger: logger)
        let stack = LoggingTransport(inner: TwiceLayer(inner: perAttempt), logger: logger)
        _ = try await stack.send(URLRequest(url: URL(string: "https://a.example/")!))
        #expect(
            logger.eventNames == [
                "request.start", "request.start", "request.response", "retry.scheduled",
                "request.start", "request.response", "request.response",
            ])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
        #expect(logger.entries.map { $0.metadata["attempt"] } == ["1", "1", "1", "1", "2", "2", "1"])
        #expect(logger.entries[3].metadata["delay_s"] == "0.250")
        #expect(logger.entries[3].level == .notice)
        #expect(logger.entries[3].message == "retry 1 of GET https://a.example/ in 0.25 s (status 503)")
    }

    @Test("an event type LoggingTransport has never heard of is logged at its own level, with its own redacted line")
    func unknownEventsAreLogged() async throws {
        /// A layer a user wrote, with its own event type.
        enum QuotaEvent: TransportEvent {
            case nearlyExhausted(remaining: Int, url: URL?)
            var name: String { "quota.nearly-exhausted" }
            var logLevel: LogLevel { .warning }
            func message(redactedBy redaction: Redaction) -> String {
                switch self {
                case .nearlyExhausted(let remaining, let url): "\(remaining) calls left for \(redaction.redact(url))"
                }
            }
            func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
                switch self {
                case .nearlyExhausted(let remaining, _): ["remaining": String(remaining)]
                }
            }
        }
        struct QuotaLayer: Transport {
            let inner: any Transport
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                let response = try await inner.send(request)
                TransportEvents.emit(QuotaEvent.nearlyExhausted(remaining: 3, url: request.url))
                return response
            }
        }
        let logger = RecordingLogger()
        let stack = LoggingTransport(
            inner: QuotaLayer(inner: CannedResponseTransport(string: "")), logger: logger,
            redaction: Redaction(extraQueryParameters: ["tenant"]))
        var request = URLRequest(url: URL(string: "https://a.example/?tenant=ACME-SECRET&access_token=Q-SECRET")!)
        request.setValue("Bearer HEADER-SECRET-1", forHTTPHeaderField: "Authorization")
        _ = try await stack.send(request)
        let quota = try #require(logger.entries.first { $0.metadata["event"] == "quota.nearly-exhausted" })
        #expect(quota.level == .warning)
        #expect(quota.message == "3 calls left for https://a.example/?tenant=<redacted>&access_token=<redacted>")
        #expect(quota.metadata["remaining"] == "3")
        #expect(!logger.text.contains("SECRET"))
    }

    @Test("a request's secret header values are scrubbed from every line logged for it, whatever event carries them")
    func requestSecretsScrubbedFromAnyEvent() async throws {
        struct EchoingLayer: Transport {
            let inner: any Transport
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                // A careless layer puts a header value in free text.
                TransportEvents.emit(
                    ETagStoreEvent.fileOperationFailed(
                        operation: "write", path: "/tmp", reason: "saw \(request.headers["X-API-Key"] ?? "")"))
                return try await inner.send(request)
            }
        }
        let logger = RecordingLogger()
        var request = URLRequest(url: URL(string: "https://a.example/")!)
        request.setValue("KEY-VALUE-77", forHTTPHeaderField: "X-API-Key")
        _ = try await LoggingTransport(inner: EchoingLayer(inner: CannedResponseTransport(string: "")), logger: logger)
            .send(request)
        #expect(logger.eventNames.contains("etag.store.file-operation-failed"))
        #expect(!logger.text.contains("KEY-VALUE-77"))
    }

    @Test("the console logger writes one key=value line per message at or above its level")
    func consoleLogger() {
        let lines = LockedValue<[String]>([])
        let logger = ConsoleLogger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        logger.log(.debug, "hidden")
        logger.log(.notice, "retry.scheduled", metadata: ["reason": "status 503", "delay_s": "0.5"])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written[0].hasSuffix(" notice retry.scheduled delay_s=0.5 reason=\"status 503\"\n"))
    }
}

@Suite("Redaction of URLs and free text")
struct RedactionTests {
    let redaction = Redaction()

    @Test("a URL's userinfo, and secret parameters in its query and fragment, are redacted")
    func urlSecrets() throws {
        let url = try #require(
            URL(string: "https://ada:PASSWORDX@h.example/p?page=2&access_token=QUERYSECRET#access_token=FRAGSECRET&state=ok"))
        let text = redaction.redact(url)
        #expect(text == "https://<redacted>@h.example/p?page=2&access_token=<redacted>#access_token=<redacted>&state=ok")
    }

    @Test("a token sent as the URL's user name alone is redacted in URLs, free text and error descriptions")
    func userNameToken() throws {
        let url = try #require(URL(string: "https://ghp_TOKEN123@h.example/repo?page=2"))
        #expect(redaction.redact(url) == "https://<redacted>@h.example/repo?page=2")
        let text = redaction.scrub("GET https://ghp_TOKEN123@h.example/repo failed; https://x:p@ss@h.example/ too; mail ada@h.example")
        #expect(text == "GET https://<redacted>@h.example/repo failed; https://<redacted>@h.example/ too; mail ada@h.example")
        let error = TransportError(.cannotConnect, method: .get, url: url, message: "https://ghp_TOKEN123@h.example/ refused")
        #expect(!error.description.contains("TOKEN123") && !error.localizedDescription.contains("TOKEN123"))
        #expect(redaction.redact(URL(string: "https://h.example/a@b")!) == "https://h.example/a@b")
    }

    @Test("secret parameters are found in free text even when their names are percent-encoded")
    func percentEncodedNames() {
        let text = redaction.scrub("GET https://h.example/?access%5Ftoken=PCTSECRET&x=1 and https://bob:PW123@h.example/ and token=PLAIN")
        #expect(!text.contains("PCTSECRET"))
        #expect(!text.contains("PW123"))
        #expect(!text.contains("PLAIN"))
        #expect(text.contains("x=1"))
    }

    @Test("event descriptions, meant for logs, carry no URL secrets")
    func hookDescriptions() throws {
        let url = try #require(URL(string: "https://h.example/items?access_token=HOOKSECRET"))
        let retry = RetryEvent.scheduled(
            retry: 1, delay: .milliseconds(500), reason: .status(503), delaySource: .backoff,
            method: .get, url: url)
        #expect(!"\(retry)".contains("HOOKSECRET"))
        #expect(!"\(ReauthEvent.resentWithCurrentToken(url: url))".contains("HOOKSECRET"))
    }
}
