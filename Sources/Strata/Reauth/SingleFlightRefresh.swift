/// The one token refresh that every concurrent 401 shares, and the bookkeeping that keeps late
/// 401s from starting another: the state a ``ReauthTransport`` and its copies share.
///
/// The refresh runs in an unstructured task, so it belongs to no caller: cancelling a caller
/// only removes that caller from the waiters (it gets `CancellationError` at once), while the
/// refresh and the other waiters carry on. Each waiter is a continuation registered under the
/// same lock as its cancellation handler, so every waiter is resumed exactly once, by whichever
/// comes first: the refresh's outcome or its cancellation.
final class SingleFlightRefresh: Sendable {
    /// What a request that got a 401 should do next.
    enum Outcome: Sendable, Equatable {
        /// A refresh (this one or one joined) produced `token`: resend with it.
        case refreshed(String)
        /// A refresh that completed meanwhile already replaced the rejected token: resend with
        /// the auth service's current token, without refreshing.
        case alreadyReplaced
    }

    private struct Flight {
        var waiters: [UInt64: CheckedContinuation<Outcome, any Error>]
        /// Every request that joined, including those cancelled since, for the event.
        var joined: Int
    }

    private struct State {
        var flight: Flight?
        var ledger = TokenLedger()
        var history: RefreshHistory
        var nextWaiter: UInt64 = 0
    }

    private enum Admission {
        case joined, started, alreadyReplaced, cancelled
        case refused(refreshes: Int)
    }

    private let authService: any AuthServiceProtocol
    private let refreshToken: @Sendable () async throws -> Void
    private let loopGuard: RefreshLoopGuard
    private let elapsed: @Sendable () -> Duration
    private let state: LockedValue<State>

    /// - Parameter elapsed: The time since a fixed origin, read from the transport's clock.
    init(
        authService: any AuthServiceProtocol, refreshToken: @escaping @Sendable () async throws -> Void,
        loopGuard: RefreshLoopGuard, elapsed: @escaping @Sendable () -> Duration
    ) {
        self.authService = authService
        self.refreshToken = refreshToken
        self.loopGuard = loopGuard
        self.elapsed = elapsed
        state = LockedValue(State(history: RefreshHistory(loopGuard: loopGuard)))
    }

    /// Whether a request's bearer `token` came from the auth service: it is the `current` one,
    /// or one handed out earlier. Remembers `current`, so requests sent with it are still
    /// recognised after a refresh or a new sign-in replaces it.
    func recognises(_ token: String, current: String?) -> Bool {
        state.withLock { state in
            if let current { state.ledger.noteCurrent(current) }
            return state.ledger.wasIssued(token)
        }
    }

    /// Whether `token` is the token most recently seen as current: certainly ours, so a request
    /// carrying it needs no question to the auth service (an actor hop on every request).
    func isLatestIssued(_ token: String) -> Bool {
        state.withLock { $0.ledger.isLatestIssued(token) }
    }

    /// The number of callers currently waiting for a refresh; for tests and diagnostics.
    var waitingCount: Int {
        state.withLock { $0.flight?.waiters.count ?? 0 }
    }

    /// Waits for a refresh that replaces `rejected`, joining the one in flight or starting one.
    ///
    /// - Returns: ``Outcome/refreshed(_:)`` with the new token, or ``Outcome/alreadyReplaced``
    ///   when a refresh that completed meanwhile already replaced `rejected`.
    /// - Throws: The refresh's ``ReauthError`` (the same one for every waiter),
    ///   ``ReauthError/refreshLoopDetected(refreshes:window:)``, or `CancellationError` as soon as
    ///   the calling task is cancelled.
    func token(replacing rejected: String) async throws -> Outcome {
        let waiter = state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                admit(waiter, replacing: rejected, resuming: continuation)
            }
        } onCancel: {
            let continuation = state.withLock { $0.flight?.waiters.removeValue(forKey: waiter) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private func admit(
        _ waiter: UInt64, replacing rejected: String,
        resuming continuation: CheckedContinuation<Outcome, any Error>
    ) {
        let now = elapsed()
        let admission = state.withLock { state -> Admission in
            // Checked under the lock the cancellation handler takes: a cancellation that came
            // before this registration is seen here, one that comes after finds the waiter.
            if Task.isCancelled { return .cancelled }
            if state.flight != nil {
                state.flight?.waiters[waiter] = continuation
                state.flight?.joined += 1
                return .joined
            }
            // The late-401 race: the refresh that replaced this token finished between the 401
            // and now. Refreshing again would rotate a token nobody rejected.
            if state.ledger.wasReplaced(rejected) { return .alreadyReplaced }
            guard state.history.admit(at: now) else { return .refused(refreshes: state.history.starts.count) }
            state.flight = Flight(waiters: [waiter: continuation], joined: 1)
            return .started
        }
        switch admission {
        case .joined:
            break
        case .cancelled:
            continuation.resume(throwing: CancellationError())
        case .alreadyReplaced:
            continuation.resume(returning: .alreadyReplaced)
        case .refused(let refreshes):
            TransportEvents.emit(ReauthEvent.refusedByLoopGuard(refreshes: refreshes, window: loopGuard.window))
            continuation.resume(throwing: ReauthError.refreshLoopDetected(refreshes: refreshes, window: loopGuard.window))
        case .started:
            // Unstructured on purpose: the refresh must outlive the caller that started it.
            Task { await self.runFlight(replacing: rejected, startedAt: now) }
        }
    }

    private func runFlight(replacing rejected: String, startedAt: Duration) async {
        TransportEvents.emit(ReauthEvent.started)
        // The refresh is the transport's own work: requests it sends are not part of the
        // request whose 401 happened to start it.
        let result = await TransportEvents.detached { await refresh() }
        let flight = state.withLock { state -> Flight? in
            if case .success(let token) = result { state.ledger.noteRefresh(replacing: rejected, with: token) }
            defer { state.flight = nil }
            return state.flight
        }
        let waiters = flight.map { Array($0.waiters.values) } ?? []
        let joined = flight?.joined ?? 0
        let duration = elapsed() - startedAt
        switch result {
        case .success(let token):
            TransportEvents.emit(ReauthEvent.succeeded(waiters: joined, duration: duration))
            for waiter in waiters { waiter.resume(returning: .refreshed(token)) }
        case .failure(let error):
            TransportEvents.emit(ReauthEvent.failed(error, waiters: joined, duration: duration))
            for waiter in waiters { waiter.resume(throwing: error) }
        }
    }

    private func refresh() async -> Result<String, ReauthError> {
        do {
            try await refreshToken()
        } catch {
            return .failure(.refreshFailed(error))
        }
        guard let token = await authService.accessToken(), !token.isEmpty else {
            return .failure(.noTokenAfterRefresh)
        }
        do {
            _ = try BearerCredential.authorization(for: token)
        } catch {
            return .failure(.invalidToken(error))
        }
        return .success(token)
    }
}
