import Dispatch
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import TestServer
import TLSTestServer

/// What the streaming tests share: a transport counting its connection threads on a limit of its
/// own (so a leak shows), and the server side of a body scripted step by step.
enum Streaming {
    /// A transport pinning `localhost` whose connection threads count against `threads`.
    static func transport(
        threads: ConnectionThreadLimit,
        configuration: PinningTransport.Configuration = .init(requestTimeout: .seconds(20))
    )
        throws -> PinningTransport
    {
        PinningTransport(
            inner: CannedRoutesTransport(routes: []),
            pinnedDomains: ["localhost": try Pinning.pins(Fixtures.Pin.leafEC)],
            trustRoots: try Pinning.privateCA(), configuration: configuration, clock: ContinuousClock(),
            threads: threads)
    }

    /// How a scripted body is framed.
    enum Framing: String, CaseIterable, Sendable, CustomStringConvertible {
        case contentLength, chunked, untilClose
        var description: String { rawValue }
    }

    /// A response whose body is `first`, then (once `gate` is signalled) `rest`, framed as `framing`.
    static func gated(_ first: String, then rest: String, framing: Framing, gate: DispatchSemaphore) -> LoopbackHTTPServer.Response {
        let headers: [(name: String, value: String)] =
            switch framing {
            case .contentLength: [("Content-Length", String(first.utf8.count + rest.utf8.count))]
            case .chunked: [("Transfer-Encoding", "chunked")]
            case .untilClose: []
            }
        return .streamed(headers: headers, closeConnection: framing == .untilClose) { write in
            let frame = { (text: String) in
                framing == .chunked ? Data((String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n").utf8) : Data(text.utf8)
            }
            guard write(frame(first)) else { return }
            // Bounded so a failing test cannot leave the server's thread waiting for ever.
            guard gate.wait(timeout: .now() + 30) == .success else { return }
            guard write(frame(rest)) else { return }
            if framing == .chunked { _ = write(Data("0\r\n\r\n".utf8)) }
        }
    }

    /// A `Content-Length` response of `size` ``BodyPattern`` bytes, written in 64 KiB pieces and
    /// never held whole.
    static func generated(size: Int) -> LoopbackHTTPServer.Response {
        .streamed(headers: [("Content-Length", String(size))]) { write in
            var offset = 0
            while offset < size {
                let count = min(64 * 1024, size - offset)
                let piece = Data(BodyPattern.bytes(from: offset, count: count))
                guard write(piece) else { return }
                offset += count
            }
        }
    }
}
