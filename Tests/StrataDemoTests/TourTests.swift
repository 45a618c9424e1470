import Foundation
@testable import StrataDemoKit
import StrataResilience
import Testing

@Suite("strata-demo tour")
struct TourTests {
    @Test("the tour runs the whole stack against its sandbox and exits 0, narrating each feature's key fact")
    func narratesKeyFacts() async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["tour"], output: captured.output)
        let text = captured.standard
        #expect(status == 0, "stderr: \(captured.error)")
        #expect(text.contains("ReauthTransport called the refresh closure once (POST /v1/token)"))
        #expect(text.contains("The sandbox answered 3 × 401"))
        #expect(text.contains("retry 1 of GET https://localhost:"))
        #expect(text.contains("as Retry-After asked (status 503)"))
        #expect(text.contains("response.source == .revalidated"))
        #expect(text.contains("Certificate pinning failure for localhost!"))
        #expect(text.contains(": CN=localhost,O=Strata Sandbox"))
        #expect(text.contains("Authorization: Bearer <redacted>"))
        #expect(text.contains("opened: 4 of 4 calls failed; calls fail at once for 30 s"))
        #expect(text.contains("/v1/reports: not sent, the circuit for https://localhost:"))
        #expect(text.contains("1 circuit opened."))
        #expect(text.contains("Done in "))
        #expect(captured.error.isEmpty)
    }

    @Test("the tour's facts hold: one refresh for three 401s, one retry, a revalidation, a pin mismatch listing the chain")
    func reportsFacts() async throws {
        let captured = CapturedOutput()
        let report = try await Tour(output: captured.output, verbose: false).run()
        #expect(report.refreshes == 1)
        #expect(report.unauthorized == 3)
        #expect(report.retries == 1)
        #expect(report.revalidated)
        #expect(report.pinFailure.contains("Peer certificate chain:"))
        #expect(report.pinFailure.contains("\(report.pin): CN=localhost,O=Strata Sandbox"))
        #expect(report.pinFailure.contains(": CN=Strata Sandbox CA,O=Strata Sandbox"), "the chain ends at the generated CA")
        #expect(report.pinFailure.contains("Pinned certificates for localhost:\n    \(Tour.wrongPin)"))
        #expect(report.logLines.contains { $0.contains("Authorization: Bearer <redacted>") })
    }

    @Test("once the circuit opens, requests to the sandbox fail at once with CircuitOpenError and none reaches it")
    func circuitOpensAndFailsFast() async throws {
        let captured = CapturedOutput()
        let report = try await Tour(output: captured.output, verbose: false).run()
        #expect(report.callsUntilOpen == 4, "3 attempts of the first GET and the first of the second")
        #expect(report.circuitOpened.contains("opened: 4 of 4 calls failed"))
        #expect(report.callsWhileOpen == 0, "the sandbox saw no call while the circuit was open")
        #expect(report.circuitRefusals.count == 4, "the second GET's retry and three more GETs")
        for refusal in report.circuitRefusals {
            let open = try #require(refusal as? CircuitOpenError, "got \(refusal)")
            #expect(open.url.path == "/v1/reports")
            #expect(open.retryAt != nil, "an open circuit says until when")
        }
    }

    @Test("no token reaches standard output, standard error or the logs, even with --verbose")
    func neverPrintsTokens() async throws {
        let captured = CapturedOutput()
        let report = try await Tour(output: captured.output, verbose: true).run()
        #expect(report.secrets.count == 3)
        #expect(!captured.error.isEmpty, "--verbose streams the log lines to standard error")
        #expect(captured.error.contains("Authorization: Bearer <redacted>"))
        for secret in report.secrets {
            #expect(!captured.standard.contains(secret))
            #expect(!captured.error.contains(secret))
            #expect(!report.logLines.contains { $0.contains(secret) })
        }
        // The tokens are built on UUIDs; nothing UUID-shaped may appear at all.
        let uuid = /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/
        #expect(captured.standard.firstMatch(of: uuid) == nil)
        #expect(captured.error.firstMatch(of: uuid) == nil)
    }
}
