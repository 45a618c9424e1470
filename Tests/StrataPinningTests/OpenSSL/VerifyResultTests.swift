@testable import StrataPinning
import Testing

@Suite("OpenSSL verify results as typed errors")
struct VerifyResultTests {
    @Test("X509_V_OK is no error")
    func ok() {
        #expect(X509VerifyResult.error(code: 0, host: "h") == nil)
    }

    @Test(
        "each verify code maps to its own case with OpenSSL's reason",
        arguments: [
            (10, "expired"), (9, "notYetValid"), (62, "hostname"), (64, "hostname"), (18, "selfSigned"),
            (20, "untrusted"), (2, "untrusted"), (21, "untrusted"), (19, "untrusted"), (27, "untrusted"), (7, "rejected"),
            (23, "rejected"),
        ])
    func mapping(code: Int, expected: String) throws {
        let error = try #require(X509VerifyResult.error(code: code, host: "api.strata.test"))
        let actual: String
        switch error {
        case let .certificateExpired(_, c, _): actual = c == code ? "expired" : "wrong code"
        case let .certificateNotYetValid(_, c, _): actual = c == code ? "notYetValid" : "wrong code"
        case let .hostnameMismatch(_, c, _): actual = c == code ? "hostname" : "wrong code"
        case let .selfSignedCertificate(_, c, _): actual = c == code ? "selfSigned" : "wrong code"
        case let .untrustedIssuer(_, c, _): actual = c == code ? "untrusted" : "wrong code"
        case let .chainRejected(_, c, _): actual = c == code ? "rejected" : "wrong code"
        default: actual = "other"
        }
        #expect(actual == expected)
        #expect(error.host == "api.strata.test")
        #expect(error.description.contains("api.strata.test"))
        #expect(error.description.contains("OpenSSL \(code): "))
    }

    @Test("the untrusted-issuer message tells a private-CA user what to configure")
    func untrustedAdvice() throws {
        let error = try #require(X509VerifyResult.error(code: 20, host: "h"))
        #expect(error.description.contains("TrustRoots.certificates"))
        #expect(error.description.contains("unable to get local issuer certificate"))
    }
}
