/// The limit that stops a refresh loop: at most ``maxRefreshes`` token refreshes (failed ones
/// included) within any ``window`` of time.
///
/// A server that rejects every freshly refreshed token (a clock skew, a revoked client, a bug)
/// would otherwise make ``ReauthTransport`` refresh after every request, hammering the token
/// endpoint. Once the limit is reached, a 401 that would start another refresh fails with
/// ``ReauthError/refreshLoopDetected(refreshes:window:)`` instead; refreshing resumes as soon as
/// the oldest refresh in the window is older than ``window``.
///
/// The default, 5 refreshes in 30 seconds, is Alamofire's `AuthenticationInterceptor` default.
public struct RefreshLoopGuard: Sendable, Hashable {
    /// The most refreshes allowed within ``window``. `0` forbids refreshing altogether.
    public var maxRefreshes: Int
    /// The sliding window the refreshes are counted in.
    public var window: Duration

    /// Creates a loop guard.
    ///
    /// - Parameters:
    ///   - maxRefreshes: The most refreshes allowed within `window`; negative values count as `0`.
    ///   - window: The sliding window; a zero or negative window never trips the guard.
    public init(maxRefreshes: Int = 5, window: Duration = .seconds(30)) {
        self.maxRefreshes = max(0, maxRefreshes)
        self.window = window
    }
}

/// When the recent refreshes happened, and whether the guard admits one more: the pure policy
/// behind ``RefreshLoopGuard``.
///
/// Times are durations since an arbitrary origin of the transport's clock, so tests drive the
/// window with a manual clock. Holds at most `maxRefreshes` entries.
struct RefreshHistory: Sendable, Hashable {
    let loopGuard: RefreshLoopGuard
    /// Start times of the refreshes still inside the window, oldest first.
    private(set) var starts: [Duration] = []

    init(loopGuard: RefreshLoopGuard) {
        self.loopGuard = loopGuard
    }

    /// Records a refresh starting at `now` and returns `true`, or returns `false` without
    /// recording anything when the window already holds `maxRefreshes` refreshes.
    mutating func admit(at now: Duration) -> Bool {
        // A refresh exactly `window` ago has left the window: "5 in 30 s" allows a sixth at 30 s.
        starts.removeAll { now - $0 >= loopGuard.window }
        guard starts.count < loopGuard.maxRefreshes else { return false }
        starts.append(now)
        return true
    }
}
