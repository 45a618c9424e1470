#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("Response headers that carry URLs or tokens are redacted in logs")
struct ResponseHeaderRedactionTests {
    let redaction = Redaction()

    @Test(
        "URL-bearing headers go through the URL redaction",
        arguments: [
            ("Location", "myapp://cb#access_token=t0k3n&state=ok", "myapp://cb#access_token=<redacted>&state=ok"),
            ("Content-Location", "https://u:pa55@api.example.com/r?token=t0k3n", "https://<redacted>@api.example.com/r?token=<redacted>"),
            (
                "Link", "<https://api.example.com/p?page=2&access_token=t0k3n>; rel=\"next\"",
                "<https://api.example.com/p?page=2&access_token=<redacted>>; rel=\"next\""
            ),
            ("Refresh", "0; url=https://api.example.com/?code=t0k3n", "0; url=https://api.example.com/?code=<redacted>"),
            ("Referer", "https://api.example.com/?sig=t0k3n", "https://api.example.com/?sig=<redacted>"),
        ])
    func urlHeaders(name: String, value: String, expected: String) {
        let redacted = redaction.redact(HTTPHeaders([(name, value)]))
        #expect(redacted[name] == expected)
    }

    @Test("Set-Cookie keeps the cookie's name and attributes, never its value")
    func setCookie() {
        var custom = Redaction()
        custom.headers.remove("set-cookie")
        for policy in [redaction, custom] {
            let value = policy.redact(HTTPHeaders([("Set-Cookie", "sid=t0k3n; Path=/; HttpOnly")]))["Set-Cookie"]
            #expect(value == "sid=<redacted>; Path=/; HttpOnly")
        }
    }

    @Test(
        "WWW-Authenticate and Proxy-Authenticate keep scheme and realm, never tokens or nonces",
        arguments: [
            ("WWW-Authenticate", "Negotiate YIIt0k3nAAAA", "Negotiate <redacted>"),
            ("WWW-Authenticate", "Bearer realm=\"api\", error=\"invalid_token\"", "Bearer realm=\"api\", error=\"invalid_token\""),
            (
                "WWW-Authenticate", "Digest realm=\"api\", nonce=\"t0k3n\", opaque=\"0p4que\"",
                "Digest realm=\"api\", nonce=<redacted>, opaque=<redacted>"
            ),
            ("Proxy-Authenticate", "NTLM TlRMTVNTUAACt0k3n", "NTLM <redacted>"),
            ("Authentication-Info", "nextnonce=\"t0k3n\", qop=auth", "nextnonce=<redacted>, qop=auth"),
        ])
    func challenges(name: String, value: String, expected: String) {
        #expect(redaction.redact(HTTPHeaders([(name, value)]))[name] == expected)
    }

    @Test("a logged 302 never shows the token its Location carries")
    func loggedRedirect() async throws {
        let logger = RecordingLogger()
        let inner = CannedResponseTransport(
            response: CannedResponse(
                string: "", statusCode: 302,
                headers: [
                    "Location": "myapp://cb#access_token=t0k3n", "Set-Cookie": "sid=c00kie; Secure",
                    "WWW-Authenticate": "Negotiate n3g0tiate",
                ]))
        _ = try await LoggingTransport(inner: inner, logger: logger).send(URLRequest(url: URL(string: "https://api.example.com/login")!))
        for secret in ["t0k3n", "c00kie", "n3g0tiate"] { #expect(!logger.text.contains(secret)) }
        #expect(logger.text.contains("myapp://cb"))
    }
}
