import Foundation
import Strata
import Testing

@Suite("Every public error reads the same through localizedDescription")
struct LocalizedErrorTests {
    static let errors: [any Error & CustomStringConvertible] = [
        NetworkError.missingAccessToken,
        NetworkError.httpStatus(HTTPResponse(statusCode: 503, url: URL(string: "https://api.example.com/a"))),
        TransportError(.timedOut, method: .get, url: URL(string: "https://api.example.com/a"), message: "after 5 s"),
        ReauthError.noTokenAfterRefresh,
        ReauthError.refreshLoopDetected(refreshes: 5, window: .seconds(30)),
        HTTPHeaderError.invalidName("bad name"),
        FileETagStoreError.cannotUseDirectory(path: "/x", reason: "it is a file"),
    ]

    @Test("localizedDescription is the description, not \"The operation could not be completed\"",
          arguments: 0..<errors.count)
    func localized(index: Int) {
        let error = Self.errors[index]
        #expect(error.localizedDescription == error.description)
        #expect(!error.localizedDescription.contains("could not be completed"))
    }
}
