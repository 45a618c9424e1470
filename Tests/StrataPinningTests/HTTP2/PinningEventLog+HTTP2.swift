@testable import StrataPinning

extension PinningEventLog {
    /// Responses that arrived over HTTP/2 streams.
    var http2Responses: Int {
        all.filter { if case .streamResponseRead = $0 { true } else { false } }.count
    }

    /// Responses that arrived over HTTP/1.1.
    var http1Responses: Int {
        all.filter { if case .responseRead = $0 { true } else { false } }.count
    }

    /// Whether a GOAWAY was reported.
    var sawGoAway: Bool {
        all.contains { if case .goAwayReceived = $0 { true } else { false } }
    }
}
