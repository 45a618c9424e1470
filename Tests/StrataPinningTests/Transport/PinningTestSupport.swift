#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataConnect
@testable import StrataPinning
import StrataTesting
import TestServer
import TLSTestServer

/// The `PinningEvent`s a transport reports to an observer above it, with shorthands.
final class PinningEventLog: Sendable {
    private let recorder = RecordingObserver()

    /// `transport` under an observer recording into this log.
    func observing(_ transport: any Transport) -> any Transport { recorder.observing(transport) }
    var all: [PinningEvent] { recorder.events(PinningEvent.self) }

    var reusedCount: Int { all.filter { if case .connectionReused = $0 { true } else { false } }.count }
    var openedCount: Int { all.filter { if case .connectionOpened = $0 { true } else { false } }.count }
    var retries: [String] {
        all.compactMap { if case let .retryingOnFreshConnection(_, _, reason) = $0 { reason } else { nil } }
    }
    var discards: [String] {
        all.compactMap { if case let .connectionDiscarded(_, _, reason) = $0 { reason } else { nil } }
    }
    var trust: [(matchedPin: String?, failure: String?)] {
        all.compactMap { if case let .trustEvaluated(_, pin, failure) = $0 { (pin, failure) } else { nil } }
    }
    var connectedAddresses: [(address: String, attempts: Int)] {
        all.compactMap { if case let .addressConnected(_, address, attempts) = $0 { (address, attempts) } else { nil } }
    }
    var tunnels: [(proxy: String, target: String)] {
        all.compactMap { if case let .tunnelOpened(proxy, host, port) = $0 { (proxy, "\(host):\(port)") } else { nil } }
    }
    var reportedMismatches: [(servedPins: [String], failure: String)] {
        all.compactMap { if case let .pinMismatchReported(_, pins, failure) = $0 { (pins, failure) } else { nil } }
    }
}

/// A resolver with fixed answers, as a DNS server with chosen records would give: `answers`
/// maps the request's host and port to the addresses (IP literal and port) to return.
struct ScriptedResolver: HostNameResolver {
    let answers: @Sendable (_ host: String, _ port: Int) -> [(literal: String, port: Int)]

    func resolve(_ host: String, port: Int) throws(TransportError) -> [SocketAddress] {
        let addresses = answers(host, port).flatMap { answer in
            (try? SystemHostNameResolver.addresses(of: answer.literal, port: answer.port, numericOnly: true)) ?? []
        }
        guard !addresses.isEmpty else { throw TransportError(.cannotConnect, message: "cannot resolve \(host): no records") }
        return addresses
    }
}

enum Pinning {
    static func pins(_ pins: String...) throws -> PublicKeyPinningEvaluator {
        try PublicKeyPinningEvaluator(pins: pins)
    }

    static func privateCA() throws -> TrustRoots {
        .certificates([try Fixtures.certificate("ca")])
    }

    /// A transport pinning `localhost` (and any extra domains) against the private CA.
    static func transport(
        pins: [String] = [Fixtures.Pin.leafEC], extra: [String: any ServerTrustEvaluator] = [:],
        roots: TrustRoots? = nil, inner: any Transport = CannedRoutesTransport(routes: []),
        configuration: PinningTransport.Configuration = .init(requestTimeout: .seconds(10)),
        clock: some Clock<Duration> = ContinuousClock(),
        resolver: any HostNameResolver = SystemHostNameResolver()
    )
        throws -> PinningTransport
    {
        var domains = extra
        domains["localhost"] = try PublicKeyPinningEvaluator(pins: pins)
        return PinningTransport(
            inner: inner, pinnedDomains: domains, trustRoots: try roots ?? privateCA(),
            configuration: configuration, clock: clock, resolver: resolver)
    }

    static func get(_ url: URL, headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(url: url, headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    static func post(_ url: URL, body: Data) -> HTTPRequest {
        HTTPRequest(method: .post, url: url, body: HTTPBody(body))
    }

    /// The error `body` throws, or nil.
    static func error(_ body: () async throws -> HTTPResponse) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
