#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import Testing

@Suite("URLRequest header reads and writes without Foundation's case-folding scans")
struct URLRequestHeaderValueTests {
    private func request(_ headers: [String: String]) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/items")!)
        request.allHTTPHeaderFields = headers
        return request
    }

    @Test(
        "a header is found whatever the case it was set or asked in, as value(forHTTPHeaderField:) finds it",
        arguments: ["Authorization", "authorization", "AUTHORIZATION"])
    func caseInsensitiveRead(name: String) {
        let request = request(["authorization": "Bearer a", "Accept": "*/*"])
        #expect(request.headerValue(name) == "Bearer a")
        #expect(request.headerValue(name) == request.value(forHTTPHeaderField: name))
        #expect(request.headerValue("Authorisation") == nil)
        #expect(URLRequest(url: URL(string: "https://a.example")!).headerValue("Accept") == nil)
    }

    @Test("setting a header replaces a field of the same name in another case, like setValue does")
    func caseInsensitiveWrite() {
        let original = request(["if-none-match": "\"old\"", "Accept": "*/*"])
        let changed = original.settingHeaderValue("\"new\"", for: "If-None-Match")
        var expected = original
        expected.setValue("\"new\"", forHTTPHeaderField: "If-None-Match")
        #expect(changed.allHTTPHeaderFields?.count == 2)
        #expect(changed.value(forHTTPHeaderField: "IF-NONE-MATCH") == "\"new\"")
        #expect(changed.allHTTPHeaderFields?.values.sorted() == expected.allHTTPHeaderFields?.values.sorted())
        #expect(original.value(forHTTPHeaderField: "If-None-Match") == "\"old\"", "the original is untouched")
    }
}
