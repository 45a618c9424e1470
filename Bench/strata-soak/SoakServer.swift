import Foundation
import Strata
import TestServer
import TLSTestServer

/// The loopback HTTPS API the soak drives, and the faults it injects: per request, 5% `503`,
/// 1% a connection reset (RST, no response), and after every `expiryEvery` requests carrying the
/// current access token, that token is retired (requests still carrying it get `401`). Refused
/// requests do not count towards the next expiry: otherwise the burst of 401s and resends that
/// follows an expiry would itself bring on the next one, and a resend could meet it.
///
/// It keeps what the checks need: which token generations it refused, and how often each
/// non-idempotent request reached its handler with a valid token.
final class SoakServer: Sendable {
    /// Counters for one round; ``takeTally()`` reads and resets them.
    struct Tally: Sendable {
        var arrivals = 0
        /// Arrivals that carried the current token.
        var authorized = 0
        var expiries = 0
        /// Token generations at least one request was refused for (with 401).
        var refusedGenerations: Set<Int> = []
        var serviceUnavailable = 0
        var resets = 0
        var notModified = 0
        /// Order id → deliveries with a valid token, for `POST /orders` without an Idempotency-Key.
        var unkeyedOrderDeliveries: [String: Int] = [:]
        /// Order ids a keyed `POST /orders` created (a repeat with the same key creates nothing).
        var keyedOrdersCreated: Set<String> = []
    }

    private struct State: Sendable {
        var generation = 1
        var random: SeededGenerator
        var tally = Tally()
    }

    let tls: TLSLoopbackServer
    private let expiryEvery: Int
    private let state: LockedValue<State>

    init(expiryEvery: Int, seed: UInt64) throws {
        tls = try TLSLoopbackServer(identity: .leafOnly)
        tls.http.recordsRequests = false
        self.expiryEvery = expiryEvery
        state = LockedValue(State(random: SeededGenerator(seed: seed)))
        for path in ["/items", "/orders"] {
            tls.http.route(path) { [self] request in handle(request) }
        }
    }

    /// The token a refresh obtains now.
    var currentToken: String { state.withLock { "token-\($0.generation)" } }

    /// This round's counters, which start again from zero.
    func takeTally() -> Tally {
        state.withLock { state in
            defer { state.tally = Tally() }
            return state.tally
        }
    }

    private func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        state.withLock { state in
            state.tally.arrivals += 1
            let presented = request.header("Authorization") ?? ""
            guard presented == "Bearer token-\(state.generation)" else {
                if let generation = Int(presented.dropFirst("Bearer token-".count)) {
                    state.tally.refusedGenerations.insert(generation)
                }
                return .init(status: 401, headers: [("WWW-Authenticate", "Bearer")], text: "token expired")
            }
            state.tally.authorized += 1
            if state.tally.authorized % expiryEvery == 0 {
                // This request still counts as authorized; the next one with this token does not.
                state.generation += 1
                state.tally.expiries += 1
            }
            let order = request.method == "POST" ? String(decoding: request.body, as: UTF8.self) : nil
            let idempotencyKey = request.header("Idempotency-Key")
            if let order, idempotencyKey == nil {
                // Counted before the fault: a request that reached us and then lost its
                // connection may have been carried out, so it must never come again.
                state.tally.unkeyedOrderDeliveries[order, default: 0] += 1
            }
            let roll = state.random.nextUnitDouble()
            if roll < 0.05 {
                state.tally.serviceUnavailable += 1
                return .init(status: 503, text: "busy")
            }
            if roll < 0.06 {
                state.tally.resets += 1
                return .reset(after: "")
            }
            if let order {
                if idempotencyKey != nil { state.tally.keyedOrdersCreated.insert(order) }
                return .init(status: 201, text: "created \(order)")
            }
            if request.method == "PUT" { return .init(status: 204) }
            let etag = "\"\(request.query ?? "")\""
            if request.header("If-None-Match") == etag {
                state.tally.notModified += 1
                return .init(status: 304, headers: [("ETag", etag)])
            }
            return .init(
                headers: [("ETag", etag), ("Content-Type", "application/json")],
                text: #"{"item":"\#(request.query ?? "")","name":"soak","tags":["a","b","c"]}"#)
        }
    }
}
