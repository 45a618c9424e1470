@testable import StrataPinning
import Testing

@Suite("A server's TLS alert is read as a client-certificate failure only when it is one")
struct TLSAlertTests {
    @Test("without a certificate: certificate_required, or handshake_failure after a TLS 1.2 request, mean one is required")
    func required() {
        #expect(
            TLSAlert(code: 116).clientAuthenticationError(host: "h", presented: nil, certificateRequested: false)
                == .certificateRequired(host: "h"))
        #expect(
            TLSAlert(code: 40).clientAuthenticationError(host: "h", presented: nil, certificateRequested: true)
                == .certificateRequired(host: "h"))
        // A handshake failure with no certificate request is about something else (ciphers, versions).
        #expect(TLSAlert(code: 40).clientAuthenticationError(host: "h", presented: nil, certificateRequested: false) == nil)
        #expect(TLSAlert(code: 48).clientAuthenticationError(host: "h", presented: nil, certificateRequested: true) == nil)
    }

    @Test("with a certificate: the certificate alerts are a refusal of it, named by the RFC")
    func refused() {
        for (code, name) in [(42, "bad_certificate"), (45, "certificate_expired"), (48, "unknown_ca"), (49, "access_denied")] {
            #expect(
                TLSAlert(code: code).clientAuthenticationError(host: "h", presented: "CN=c", certificateRequested: true)
                    == .certificateRefused(host: "h", subject: "CN=c", alert: name))
        }
        #expect(TLSAlert(code: 70).clientAuthenticationError(host: "h", presented: "CN=c", certificateRequested: true) == nil)
        #expect(TLSAlert(code: 70).name == "alert 70")
    }

    @Test("the descriptions say what to configure")
    func descriptions() {
        #expect(
            ClientAuthenticationError.certificateRequired(host: "api").description
                .contains("PinningTransport.Configuration.clientIdentities"))
        #expect(
            ClientAuthenticationError.certificateRefused(host: "api", subject: "CN=c", alert: "unknown_ca").description
                .contains("refused the client certificate CN=c (TLS alert unknown_ca)"))
    }
}
