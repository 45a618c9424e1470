import Foundation
import Strata
import StrataResilience
import StrataTesting

/// Requests, transports and an event feed for the hedging tests.
enum HedgingFixtures {
    static let url = URL(string: "https://api.example.com/todos")!

    static func request(_ method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: HTTPBody? = nil) -> HTTPRequest {
        HTTPRequest(method: method, url: url, headers: headers, body: body)
    }

    /// One hedge after 100 ms with a budget that never runs out in a test.
    static func policy(
        maxHedgedAttempts: Int = 1, delay: HedgingDelay = .fixed(.milliseconds(100)),
        budget: HedgingBudget? = HedgingBudget(ratio: 0.1, maxTokens: 10)
    ) -> HedgingPolicy {
        HedgingPolicy(maxHedgedAttempts: maxHedgedAttempts, delay: delay, budget: budget)
    }
}

/// Records every event and lets a test wait, without sleeping, until one with a given name was
/// reported.
final class EventFeed: Sendable {
    let recorder = RecordingObserver()
    private let names: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (names, continuation) = AsyncStream.makeStream(of: String.self)
    }

    /// `transport` observed by this feed.
    func observing(_ transport: any Transport) -> ObservingTransport {
        ObservingTransport(inner: transport) { [recorder, continuation] observed in
            recorder.record(observed)
            continuation.yield(observed.event.name)
        }
    }

    /// Waits until an event named `name` is reported (or was, since the last wait).
    func waitFor(_ name: String) async {
        for await reported in names where reported == name { return }
    }

    /// The names of the hedging events, in order.
    var hedgingNames: [String] { recorder.names.filter { $0.hasPrefix("hedging.") } }
}
