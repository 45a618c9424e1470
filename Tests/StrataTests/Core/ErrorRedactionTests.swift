#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing

@Suite("Error descriptions never carry URL secrets")
struct ErrorRedactionTests {
    static let url = URL(string: "https://alice:pa55word@api.example.com/items?access_token=tok3n&page=2#id_token=id7")!
    static let secrets = ["pa55word", "tok3n", "id7"]

    private func expectRedacted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in Self.secrets {
            #expect(!text.contains(secret), "\(secret) leaked: \(text)", sourceLocation: sourceLocation)
        }
        #expect(text.contains("api.example.com"), sourceLocation: sourceLocation)
    }

    @Test("TransportError's description and localizedDescription redact the URL and the message")
    func transportError() {
        let error = TransportError(
            .timedOut, method: .get, url: Self.url,
            message: "curl failed for \(Self.url.absoluteString)")
        expectRedacted(error.description)
        expectRedacted(error.localizedDescription)
        expectRedacted(String(describing: error))
        #expect(error.url == Self.url, "the raw URL stays available to code")
    }

    @Test("NetworkError's descriptions redact the URL of the response and of the transport failure")
    func networkError() {
        let status = NetworkError.httpStatus(HTTPResponse(statusCode: 500, url: Self.url))
        expectRedacted(status.description)
        expectRedacted(status.localizedDescription)
        let transport = NetworkError.transport(TransportError(.cannotConnect, url: Self.url))
        expectRedacted(transport.description)
        expectRedacted(transport.localizedDescription)
        let invalid = NetworkError.invalidURL("cannot build \(Self.url.absoluteString)")
        for secret in Self.secrets { #expect(!invalid.description.contains(secret)) }
    }
}
