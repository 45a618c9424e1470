#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import StrataResilience
import StrataSandbox

/// The guided tour: starts the sandbox API and runs the README's recommended stack against it,
/// one feature per step, narrating what each layer did from its own event hook.
///
/// Steps 1 to 5 use the README's stack:
/// ```
/// HTTPNetworkService
///   └─ LoggingTransport → ReauthTransport → RetryTransport → ETagTransport
///        → PinningTransport → URLSessionTransport (unpinned hosts; unused here)
/// ```
/// Step 6 uses the resilient stack (``ResilientTourStack``), which adds the `StrataResilience`
/// layers where each one's documentation puts it, sharing the first stack's token, logs and
/// pinned transport:
/// ```
/// HTTPNetworkService
///   └─ LoggingTransport → ReauthTransport → ConcurrencyLimitTransport → RetryTransport
///        → ETagTransport → CircuitBreakerTransport → AttemptTimeoutTransport → PinningTransport
/// ```
/// against `GET /v1/reports`, which always answers 503: the retried attempts open the circuit,
/// and the next requests fail at once with `CircuitOpenError` while the sandbox receives nothing.
struct Tour {
    /// A pin no key in the sandbox's chain has, for the failure step.
    static let wrongPin = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    let output: DemoOutput
    let verbose: Bool

    /// Runs every step.
    ///
    /// - Returns: The facts the narration reported.
    /// - Throws: ``TourFailure`` when a layer did not do what the step shows, or the error of a
    ///   request that should have succeeded.
    func run() async throws -> TourReport {
        let started = ContinuousClock.now
        let sandbox = try Sandbox()
        let stack = try TourStack(sandbox: sandbox, logs: LogCollector(echo: verbose ? output.errorLine : nil))
        say(
            "Strata tour: a sandbox HTTPS API runs at \(sandbox.baseURL.absoluteString) "
                + "(TLS with a private CA generated at startup).")
        say("Stack: HTTPNetworkService → LoggingTransport → ReauthTransport → RetryTransport → ETagTransport")
        say("       → PinningTransport (localhost pinned) → URLSessionTransport (every other host)")
        if verbose { say("Every debug-level log line goes to standard error as it happens.") }

        try await refreshStep(stack, sandbox)
        let retries = try await retryStep(stack, sandbox)
        let revalidated = try await revalidationStep(stack, sandbox)
        let pinFailure = try await pinningStep(stack, sandbox)
        let logLines = try logStep(stack, sandbox)
        let circuit = try await circuitStep(stack, sandbox)

        let duration = ContinuousClock.now - started
        let seen = sandbox.seen
        say("")
        say(
            "Done in \(Self.milliseconds(duration)) ms: \(seen.tokenGrants) token refresh for \(seen.unauthorized) × 401, "
                + "\(retries) retry, 1 revalidated GET (304), 1 pin mismatch refused, no token in any log line, "
                + "1 circuit opened.")
        return TourReport(
            refreshes: seen.tokenGrants, unauthorized: seen.unauthorized, retries: retries,
            revalidated: revalidated, pin: stack.pin, pinFailure: pinFailure, circuitOpened: circuit.opened,
            callsUntilOpen: circuit.callsUntilOpen, callsWhileOpen: circuit.callsWhileOpen,
            circuitRefusals: circuit.refusals, logLines: logLines,
            secrets: [sandbox.expiredToken, sandbox.validToken, sandbox.refreshToken], duration: duration)
    }

    // MARK: - Steps

    /// Three concurrent requests with an expired token: three 401s, one refresh, three resends.
    private func refreshStep(_ stack: TourStack, _ sandbox: Sandbox) async throws {
        heading(1, "An expired token: one shared refresh for concurrent 401s (ReauthTransport)")
        say("   GET /v1/todos/1, /v1/todos/2 and /v1/todos/3 at once, each with an expired bearer token.")
        let todos = try await withThrowingTaskGroup(of: Todo.self) { group in
            for id in 1...3 {
                group.addTask { try await stack.service.request(to: SandboxAPI.todo(id: id), via: stack.environment) }
            }
            return try await group.reduce(into: [Todo]()) { $0.append($1) }.sorted { $0.id < $1.id }
        }
        let seen = sandbox.seen
        say(
            "   The sandbox answered \(seen.unauthorized) × 401; ReauthTransport called the refresh closure "
                + "\(seen.tokenGrants == 1 ? "once" : "\(seen.tokenGrants) times") (POST /v1/token):")
        for event in stack.events.all(ReauthEvent.self) where event.name.hasPrefix("reauth.refresh.") {
            say("     \(event)")
        }
        if stack.events.all(ReauthEvent.self).contains(where: { if case .resentWithCurrentToken = $0 { true } else { false } }) {
            say("   (A 401 that arrived after the refresh finished answered the replaced token: no second refresh.)")
        }
        say("   Each request was resent once with the new token → 200: " + todos.map { "\"\($0.title)\"" }.joined(separator: ", "))
        guard seen.tokenGrants == 1 else { throw TourFailure("expected 1 token refresh, the sandbox saw \(seen.tokenGrants)") }
    }

    /// A 503 with `Retry-After: 0`, then 200.
    private func retryStep(_ stack: TourStack, _ sandbox: Sandbox) async throws -> Int {
        heading(2, "A flaky endpoint: 503, then 200 (RetryTransport)")
        say("   GET /v1/health answers 503 Service Unavailable with Retry-After: 0 the first time.")
        let response = try await stack.service.response(to: SandboxAPI.health, via: stack.environment)
        let retries = stack.events.all(RetryEvent.self)
        for event in retries { say("   \(event)") }
        say("   → \(response.statusCode) \(response.text ?? "") after \(sandbox.seen.healthCalls) sends.")
        guard retries.count == 1 else { throw TourFailure("expected 1 retry, RetryTransport made \(retries.count)") }
        return retries.count
    }

    /// Two GETs of an unchanged list: the second is a 304 answered from the store.
    private func revalidationStep(_ stack: TourStack, _ sandbox: Sandbox) async throws -> Bool {
        heading(3, "An unchanged resource: 304, body from the ETag store (ETagTransport)")
        let first = try await stack.service.response(to: SandboxAPI.todos, via: stack.environment)
        say(
            "   First GET /v1/todos → \(first.statusCode), \(first.body.count) bytes, ETag \(first.headers["ETag"] ?? "none"); "
                + "stored (source: .\(first.source.rawValue)).")
        let second = try await stack.service.response(to: SandboxAPI.todos, via: stack.environment)
        say(
            "   Second GET /v1/todos carried If-None-Match; the sandbox answered 304 Not Modified "
                + "(\(sandbox.seen.notModified) so far).")
        let saved = stack.events.all(ETagEvent.self).compactMap { event -> Int? in
            guard case .revalidated(_, let bytes) = event else { return nil }
            return bytes
        }.reduce(0, +)
        say(
            "   ETagTransport answered from its store (\(saved) bytes not downloaded): the caller still got "
                + "\(second.statusCode) with the same body, and response.source == .\(second.source.rawValue).")
        guard second.source == .revalidated, second.body == first.body else {
            throw TourFailure("expected the second GET to be revalidated, got source .\(second.source.rawValue)")
        }
        return true
    }

    /// Every request above passed the pin check; a transport pinned to the wrong key refuses.
    private func pinningStep(_ stack: TourStack, _ sandbox: Sandbox) async throws -> String {
        heading(4, "Certificate pinning (PinningTransport)")
        let checks = stack.events.all(PinningEvent.self).compactMap { event -> String? in
            guard case .trustEvaluated(_, let matched, nil) = event else { return nil }
            return matched
        }
        let connections = stack.events.all(PinningEvent.self).filter {
            if case .connectionOpened = $0 { true } else { false }
        }.count
        say("   localhost is pinned to \(stack.pin) (the key of the sandbox's certificate, made at startup).")
        say(
            "   Every request above travelled over \(connections) verified TLS connection(s); "
                + "each passed the pin check (matched \(Set(checks).sorted().joined(separator: ", "))).")
        say("   A second transport pinned to \(Self.wrongPin) instead sends GET /v1/todos/1:")
        let refused = try await stack.sendWithWrongPin()
        for line in refused.description.split(separator: "\n") { say("     \(line)") }
        say(
            "   Nothing was sent; the failure is TransportError(.tls), which RetryTransport never retries. "
                + "Copy a pin from the chain above to fix the configuration.")
        return refused.description
    }

    /// Quotes the log lines that show each feature, and proves no token was logged.
    private func logStep(_ stack: TourStack, _ sandbox: Sandbox) throws -> [String] {
        heading(5, "Structured, redacted logs (LoggingTransport)")
        let lines = stack.logs.all
        let secrets = [sandbox.expiredToken, sandbox.validToken, sandbox.refreshToken]
        if let leak = lines.first(where: { line in secrets.contains { line.contains($0) } }) {
            throw TourFailure("a log line contains a token: \(leak.prefix(40))…")
        }
        let wanted = ["request.start", "reauth.refresh.succeeded", "retry.scheduled", "etag.revalidated", "request.response"]
        let quoted = wanted.compactMap { name in
            lines.first { line in
                line.contains(" event=\(name) ") && (name != "request.start" || line.contains("Authorization: Bearer"))
                    && (name != "request.response" || line.contains("source=revalidated"))
            }
        }
        say("   \(lines.count) lines were logged (\(verbose ? "all shown on standard error" : "use --verbose to see them all")); a few:")
        for line in quoted { say("     \(line)") }
        let redacted = lines.filter { $0.contains("Authorization: Bearer \(Redaction.placeholder)") }.count
        say(
            "   Authorization appears as \"Bearer \(Redaction.placeholder)\" in \(redacted) lines; "
                + "the tokens themselves appear in none.")
        guard redacted > 0 else { throw TourFailure("no log line shows a redacted Authorization header") }
        return lines
    }

    /// What the circuit-breaker step established.
    private struct CircuitFacts {
        var opened: String
        var callsUntilOpen: Int
        var callsWhileOpen: Int
        var refusals: [any Error]
    }

    /// A dependency that is down, through the resilient stack: retried 503s open the circuit,
    /// then requests fail at once and the sandbox receives none of them.
    private func circuitStep(_ base: TourStack, _ sandbox: Sandbox) async throws -> CircuitFacts {
        heading(6, "A dependency that is down: the circuit opens, requests fail fast (CircuitBreakerTransport)")
        let stack = ResilientTourStack(sharing: base)
        say("   A second stack, with every resilience layer, in the order Strata recommends (outermost first):")
        let width = ResilientTourStack.layers.map(\.name.count).max() ?? 0
        for (index, layer) in ResilientTourStack.layers.enumerated() {
            let name = layer.name.padding(toLength: width, withPad: " ", startingAt: 0)
            say("     \(index == 0 ? " " : "→") \(name)  \(layer.why)")
        }
        say("   GET /v1/reports answers 503 Service Unavailable, without Retry-After, on every call.")

        let first = try await failure(of: stack)
        say("   First GET: \(sandbox.seen.reportCalls) attempts, each a 503 the circuit breaker counted as a failure:")
        for event in stack.events.all(RetryEvent.self) { say("     \(event)") }
        say("     → \(first)")

        let retriesBefore = stack.events.all(RetryEvent.self).count
        let second = try await failure(of: stack)
        let callsUntilOpen = sandbox.seen.reportCalls
        let opened = stack.events.all(CircuitBreakerEvent.self).filter { $0.name == "circuit.opened" }
        guard opened.count == 1, let openedLine = opened.first?.description else {
            throw TourFailure("expected the circuit to open once, it opened \(opened.count) times")
        }
        say("   Second GET: its first attempt was the 4th failure in a row, and the circuit opened:")
        say("     \(openedLine)")
        for event in stack.events.all(RetryEvent.self).dropFirst(retriesBefore) { say("     \(event)") }
        guard let refusal = second as? CircuitOpenError else {
            throw TourFailure("expected the second GET's retry to meet the open circuit, it failed with: \(second)")
        }
        say("   Its retry met the open circuit and stopped there (CircuitOpenError is never retried):")
        say("     \(refusal)")

        let started = ContinuousClock.now
        var refusals: [any Error] = [second]
        for _ in 1...3 { refusals.append(try await failure(of: stack)) }
        let elapsed = ContinuousClock.now - started
        let callsWhileOpen = sandbox.seen.reportCalls - callsUntilOpen
        guard refusals.allSatisfy({ $0 is CircuitOpenError }) else {
            throw TourFailure("expected every GET while open to fail with CircuitOpenError, got: \(refusals)")
        }
        say(
            "   Three more GETs failed the same way, at once (\(Self.microseconds(elapsed)) µs for the three); "
                + "the sandbox received \(callsUntilOpen) calls of GET /v1/reports before the circuit opened "
                + "and \(callsWhileOpen) while it was open.")
        guard callsWhileOpen == 0 else { throw TourFailure("the sandbox received \(callsWhileOpen) calls while the circuit was open") }
        say("   After 30 s the breaker lets one probe through; the circuit closes when it succeeds.")
        return CircuitFacts(opened: openedLine, callsUntilOpen: callsUntilOpen, callsWhileOpen: callsWhileOpen, refusals: refusals)
    }

    /// Sends `GET /v1/reports` through `stack`, which must fail.
    ///
    /// - Returns: The failure: the `NetworkError.httpStatus` of a final 503, or the transport's
    ///   own error unwrapped from `NetworkError.transport`.
    /// - Throws: ``TourFailure`` when the request succeeded.
    private func failure(of stack: ResilientTourStack) async throws -> any Error {
        do {
            _ = try await stack.service.response(to: SandboxAPI.reports, via: stack.environment)
        } catch NetworkError.transport(let error) {
            return error
        } catch {
            return error
        }
        throw TourFailure("GET /v1/reports succeeded; the sandbox answers it 503")
    }

    // MARK: - Narration

    private func heading(_ number: Int, _ title: String) {
        say("")
        say(output.styled("\(number). \(title)", .bold))
    }

    private func say(_ line: String) { output.line(line) }

    static func microseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// A step of the tour did not go as it shows; the message says which fact failed.
struct TourFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
