/// The access tokens a ``ReauthTransport`` has seen its auth service hand out, and which of them
/// a refresh has already replaced: the pure bookkeeping behind "is this request ours?" and
/// "has this 401 already been dealt with?".
///
/// Both lists are bounded (``capacity``): only the last few tokens can still be on requests in
/// flight, and old credentials should not linger in memory.
struct TokenLedger: Sendable, Hashable {
    /// How many tokens each list keeps. A token older than this many rotations is forgotten; a
    /// request still carrying it is treated as foreign and its 401 passes through.
    static let capacity = 8

    /// Tokens the auth service returned as current, most recent last.
    private(set) var issued: [String] = []
    /// Tokens a completed refresh replaced with a different token, most recent last.
    private(set) var replaced: [String] = []

    /// Records that the auth service returned `token` as the current token.
    mutating func noteCurrent(_ token: String) {
        Self.appendMostRecent(token, to: &issued)
        // A token that is current again (set back by the app) may need refreshing once more.
        replaced.removeAll { $0 == token }
    }

    /// Records that a refresh replaced `old` with `new`. A refresh that left the token unchanged
    /// marks nothing as replaced, so the next 401 for it refreshes again.
    mutating func noteRefresh(replacing old: String, with new: String) {
        Self.appendMostRecent(old, to: &issued)
        noteCurrent(new)
        guard old != new else { return }
        Self.appendMostRecent(old, to: &replaced)
    }

    /// Whether the auth service handed out `token` (recently enough to remember).
    func wasIssued(_ token: String) -> Bool { issued.contains(token) }

    /// Whether `token` is the one most recently noted as current. Such a token was issued, and
    /// is in no list of replaced tokens (noting it as current took it out), whatever the auth
    /// service holds now.
    func isLatestIssued(_ token: String) -> Bool { issued.last == token }

    /// Whether a completed refresh already replaced `token`.
    func wasReplaced(_ token: String) -> Bool { replaced.contains(token) }

    private static func appendMostRecent(_ token: String, to list: inout [String]) {
        list.removeAll { $0 == token }
        list.append(token)
        if list.count > capacity { list.removeFirst(list.count - capacity) }
    }
}
