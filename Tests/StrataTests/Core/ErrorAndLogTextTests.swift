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

    @Test(
        "localizedDescription is the description, not \"The operation could not be completed\"",
        arguments: 0..<errors.count)
    func localized(index: Int) {
        let error = Self.errors[index]
        #expect(error.localizedDescription == error.description)
        #expect(!error.localizedDescription.contains("could not be completed"))
    }
}

@Suite("Numbers and durations in log lines")
struct LogNumberFormattingTests {
    @Test("fixed decimals match %.Nf without String(format:)")
    func fixedDecimals() {
        for value in [0.0, 0.004, 0.0051, 1.26, 12.3456, 440.12, -2.7, 999.999, 1e6 + 0.26] {
            for places in [0, 2, 3] {
                #expect(Double.fixed(value, places: places) == String(format: "%.\(places)f", value), "\(value) \(places)")
            }
        }
        #expect(Duration.milliseconds(4_390).readable == "4.39 s")
        #expect(Duration.microseconds(4_390).readable == "4.39 ms")
        #expect(Duration.seconds(30).readable == "30 s")
    }
}
