import Foundation
import Strata
import TestServer

/// `strata-bench sse [events]`: server-sent events per second, parsed from a loopback HTTP/1.1
/// server (Tests/TestServer) streaming many small events, through `URLSessionTransport`.
///
/// Three readers of the same body: the parser alone over the bytes in memory (its ceiling), the
/// body read with `stream` and `serverSentEvents()` (no hand-over), and an `EventSource` (one
/// connection, `ReconnectPolicy.never`: its producing task and hand-over included). Each figure
/// is the median over interleaved rounds.
enum ServerSentEventBenchmark {
    static func run(_ options: BenchOptions) async throws {
        let count = options.positional.first.flatMap(Int.init) ?? (options.quick ? 20_000 : 200_000)
        let rounds = options.rounds ?? (options.quick ? 1 : 5)
        // An LLM-style token stream: an id, then one short data line per event.
        var text = ""
        for index in 0..<count { text += "id: \(index)\ndata: {\"token\":\"tok\(index % 1000)\"}\n\n" }
        let body = Data(text.utf8)
        let server = try LoopbackHTTPServer()
        server.route("/events", response: .init(headers: [("Content-Type", "text/event-stream")], body: body))
        let request = HTTPRequest(url: server.url("/events"))
        let transport = URLSessionTransport()

        let readers: [(String, () async throws -> Int)] = [
            ("parser alone, bytes in memory", { try parseInMemory(body) }),
            (
                "stream + body.serverSentEvents()",
                {
                    try await transport.stream(request) { _, body in
                        var events = 0
                        for try await _ in body.serverSentEvents() { events += 1 }
                        return events
                    }
                }
            ),
            (
                "EventSource (one connection)",
                {
                    var events = 0
                    for try await _ in EventSource(transport: transport, request: request, reconnect: .never) { events += 1 }
                    return events
                }
            ),
        ]
        print(
            "\(count) events (\(body.count / 1024) KiB) from a loopback HTTP/1.1 server through URLSessionTransport; "
                + "\(rounds) interleaved rounds, medians")
        var seconds = Array(repeating: [Double](), count: readers.count)
        for round in 0..<rounds {
            for offset in readers.indices {
                let index = (offset + round) % readers.count
                let start = ContinuousClock.now
                let events = try await readers[index].1()
                seconds[index].append(Measurement.nanoseconds(ContinuousClock.now - start) / 1e9)
                guard events == count else { throw CurlRun.Failure(description: "\(readers[index].0) read \(events) of \(count) events") }
            }
        }
        print("reader".padding(toLength: 36, withPad: " ", startingAt: 0) + "    events/s      MB/s")
        for (index, reader) in readers.enumerated() {
            let median = Measurement.median(seconds[index])
            print(
                reader.0.padding(toLength: 36, withPad: " ", startingAt: 0)
                    + String(format: "%12.0f", Double(count) / median)
                    + String(format: "%10.1f", Double(body.count) / median / 1e6))
        }
    }

    /// Parses `body` in 64 KiB chunks, as a connection would hand them over; the number of events.
    private static func parseInMemory(_ body: Data) throws -> Int {
        let bytes = [UInt8](body)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var total = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 64 * 1024)
            try parser.parse(bytes[offset..<end], into: &events)
            total += events.count
            events.removeAll(keepingCapacity: true)
            offset = end
        }
        return total
    }
}
