import Strata
import Testing

@Suite("URL user information is hidden up to the last '@' of what may be the authority")
struct RedactionUserinfoTests {
    @Test(
        "a parsed URL's authority ends at its first '/', '?' or '#': an '@' in the path stays",
        arguments: [
            ("https://alice:s3cret@h.example/a@b", "https://<redacted>@h.example/a@b"),
            ("https://to:k@en@h.example/", "https://<redacted>@h.example/"),
            ("https://h.example/a@b?x=c@d", "https://h.example/a@b?x=c@d"),
            ("https://h.example:8443/", "https://h.example:8443/"),
        ])
    func parsed(text: String, expected: String) {
        #expect(Redaction.redactingUserinfo(in: text, .parsed) == expected)
    }

    @Test(
        "rejected text is hidden up to its last '@', and a non-numeric 'port' without one is hidden too",
        arguments: [
            ("redis://:Xy@9/kQ2v@cache.internal:6379/2", "redis://<redacted>@cache.internal:6379/2"),
            ("redis://default:1234/secret@cache:6379", "redis://<redacted>@cache:6379"),
            ("alice:pa://ss@proxy:3128", "<redacted>@proxy:3128"),
            ("http://alice:hunter2", "http://alice:<redacted>"),
            ("http://proxy:3128/", "http://proxy:3128/"),
            ("http://[::1]:3128", "http://[::1]:3128"),
        ])
    func rejected(text: String, expected: String) {
        #expect(Redaction.redactingUserinfo(in: text, .rejected) == expected)
    }
}
