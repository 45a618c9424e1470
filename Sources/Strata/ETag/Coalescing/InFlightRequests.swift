import Foundation

/// Concurrent identical requests that must go to the network share one exchange: the first
/// caller (the leader) sends it, the others await its outcome.
///
/// - Each waiter's cancellation ends only its own wait (with `CancellationError`).
/// - So does a waiter's own ``RequestDeadline``: no terminal sees a waiter, so the wait itself
///   ends when it passes, with the terminals' `timedOut` error.
/// - When the leader is cancelled, or its own deadline passes, its exchange is abandoned and the
///   waiters look again: one of them becomes the leader and sends the request; the others wait.
/// - Any other outcome of the leader, a response or an error, is every waiter's outcome.
///
/// Only memory holds the keys, so they may be the requests' own fields; nothing here is
/// persisted or reported.
final class InFlightRequests: Sendable {
    /// What makes two requests identical for coalescing: the store key (resource and
    /// partition), the method, every header field in order, and the endpoint's cache policy.
    ///
    /// Its hash is the store key's, computed once per request (see ``StoreKey``): identical
    /// requests share it, and the table hashes one integer on each of its two operations per
    /// request instead of the key's hundred-odd bytes and every header field.
    struct Key: Hashable, Sendable {
        let primaryKey: StoreKey
        let method: HTTPMethod
        let headers: HTTPHeaders
        let rule: EndpointCachePolicy

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.primaryKey == rhs.primaryKey && lhs.method == rhs.method && lhs.headers == rhs.headers
                && lhs.rule == rhs.rule
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(primaryKey.hash)
        }
    }

    private enum Outcome: Sendable {
        case response(HTTPResponse)
        case failure(any Error)
        /// The leader gave up (it was cancelled): look again, and perhaps lead.
        case lookAgain
        /// This waiter was cancelled.
        case cancelled
        /// This waiter's ``RequestDeadline`` passed.
        case timedOut
    }

    private struct Flight {
        // `Dictionary()`, not the literal `[:]`, which calls the literal's initializer on every
        // request this table sees (about 240 instructions, each time from cold code).
        var waiters = [UInt64: CheckedContinuation<Outcome, Never>]()
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = LockedValue(State())

    // Inlined (as is `lead`) into `ETagTransport`: as calls of their own, which the optimizer
    // chose when `run` was longer, they cost two more async frames per request.

    /// Runs `exchange` for `key`, or awaits the run already in flight for it.
    ///
    /// - Parameters:
    ///   - key: What identifies the request.
    ///   - url: The request's URL, for the error of a wait that outlives the caller's deadline.
    ///   - joined: Called (in the caller's task) once the caller waits for another's exchange.
    ///   - exchange: Sends the request and returns its response; run by at most one caller at
    ///     a time per key.
    /// - Returns: The response of the exchange the caller ran or awaited.
    /// - Throws: The exchange's error, `CancellationError` when the caller was cancelled, or
    ///   ``TransportError`` of kind ``TransportError/Kind/timedOut`` when the caller's
    ///   ``RequestDeadline`` passed while it waited.
    @inline(__always)
    nonisolated(nonsending) func run(
        _ key: Key, url: URL, joined: () -> Void,
        _ exchange: nonisolated(nonsending) () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        while true {
            let leads = state.withLock { state -> Bool in
                guard state.flights[key] == nil else { return false }
                state.flights[key] = Flight()
                return true
            }
            if leads { return try await lead(key, exchange) }
            switch await wait(for: key, joined: joined) {
            case .response(let response): return response
            case .failure(let error): throw error
            case .cancelled: throw CancellationError()
            case .timedOut: throw RequestDeadline.timedOut(method: key.method, url: url)
            case .lookAgain: continue
            }
        }
    }

    @inline(__always)
    private nonisolated(nonsending) func lead(
        _ key: Key, _ exchange: nonisolated(nonsending) () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        do {
            let response = try await exchange()
            finish(key, with: .response(response))
            return response
        } catch {
            // A cancelled leader's error is its own, and so is its own deadline passing: the
            // waiters (with later deadlines, or none) carry on without it.
            let ownFailure = Task.isCancelled || error is CancellationError || Self.ownDeadlinePassed(error)
            finish(key, with: ownFailure ? .lookAgain : .failure(error))
            throw error
        }
    }

    /// Whether `error` is the leader's own whole-request deadline passing (a timeout while its
    /// ``RequestDeadline`` is over), not the server's or the network's.
    private static func ownDeadlinePassed(_ error: any Error) -> Bool {
        guard (error as? TransportError)?.kind == .timedOut, let deadline = RequestDeadline.current else { return false }
        return deadline <= .now
    }

    /// Ends the flight of `key`; `outcome` is made only when someone waits for it (usually
    /// no one does, and the response is not copied).
    private func finish(_ key: Key, with outcome: @autoclosure () -> Outcome) {
        let waiters = state.withLock { $0.flights.removeValue(forKey: key)?.waiters }
        guard let waiters, !waiters.isEmpty else { return }
        let outcome = outcome()
        for waiter in waiters.values { waiter.resume(returning: outcome) }
    }

    /// Waits for the flight of `key`; registering and the cancellation check happen under the
    /// lock, so a cancellation that comes before registration is still seen. `joined` is called
    /// once the wait is registered (so it means the caller will get that flight's outcome).
    /// With a ``RequestDeadline``, a timer ends the wait when it passes (a deadline already
    /// passed ends it before registration; the timer only fires after it passed, so it cannot
    /// miss a waiter that registers late).
    private nonisolated(nonsending) func wait(for key: Key, joined: () -> Void) async -> Outcome {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        let deadline = RequestDeadline.current
        let timer = deadline.map { deadline in
            Task { [weak self] in
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                self?.end(waiter: id, of: key, with: .timedOut)
            }
        }
        defer { timer?.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let registered = state.withLock { state -> Outcome? in
                    guard !Task.isCancelled else { return .cancelled }
                    if let deadline, deadline <= .now { return .timedOut }
                    // The flight ended between the look and now: look again.
                    guard state.flights[key] != nil else { return .lookAgain }
                    state.flights[key]?.waiters[id] = continuation
                    return nil
                }
                guard let registered else { return joined() }
                continuation.resume(returning: registered)
            }
        } onCancel: {
            end(waiter: id, of: key, with: .cancelled)
        }
    }

    /// Ends one waiter's wait, unless its flight already resumed it.
    private func end(waiter id: UInt64, of key: Key, with outcome: Outcome) {
        let continuation = state.withLock { $0.flights[key]?.waiters.removeValue(forKey: id) }
        continuation?.resume(returning: outcome)
    }
}
