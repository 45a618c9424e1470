@testable import Strata
import Testing

@Suite("Reauth policy: loop-guard window, token ledger, bearer credentials")
struct ReauthPolicyTests {
    /// `history.admit(at:)`, callable inside `#expect`.
    private func admit(_ history: inout RefreshHistory, _ now: Duration) -> Bool {
        history.admit(at: now)
    }

    @Test("the history admits maxRefreshes refreshes in a window and refuses the next")
    func historyAdmitsUpToTheLimit() {
        var history = RefreshHistory(loopGuard: RefreshLoopGuard(maxRefreshes: 3, window: .seconds(10)))
        #expect(admit(&history, .seconds(0)))
        #expect(admit(&history, .seconds(1)))
        #expect(admit(&history, .seconds(2)))
        #expect(!admit(&history, .seconds(9)))
        #expect(history.starts == [.seconds(0), .seconds(1), .seconds(2)]) // A refusal records nothing.
    }

    @Test("a refresh exactly one window old no longer counts")
    func windowBoundary() {
        var history = RefreshHistory(loopGuard: RefreshLoopGuard(maxRefreshes: 1, window: .seconds(10)))
        #expect(admit(&history, .seconds(5)))
        #expect(!admit(&history, .milliseconds(14_999)))
        #expect(admit(&history, .seconds(15)))
        #expect(history.starts == [.seconds(15)])
    }

    @Test("a guard of zero refreshes refuses every refresh; a negative limit counts as zero")
    func zeroRefreshes() {
        var history = RefreshHistory(loopGuard: RefreshLoopGuard(maxRefreshes: -1))
        #expect(RefreshLoopGuard(maxRefreshes: -1).maxRefreshes == 0)
        #expect(!admit(&history, .zero))
    }

    @Test("a zero window never trips the guard")
    func zeroWindow() {
        var history = RefreshHistory(loopGuard: RefreshLoopGuard(maxRefreshes: 1, window: .zero))
        #expect(admit(&history, .zero))
        #expect(admit(&history, .zero))
    }

    @Test("the default guard is 5 refreshes in 30 seconds")
    func defaultGuard() {
        #expect(RefreshLoopGuard() == RefreshLoopGuard(maxRefreshes: 5, window: .seconds(30)))
    }

    @Test("the ledger recognises current and replaced tokens, and forgets the oldest beyond its capacity")
    func ledgerBounds() {
        var ledger = TokenLedger()
        for rotation in 0..<TokenLedger.capacity {
            ledger.noteRefresh(replacing: "t\(rotation)", with: "t\(rotation + 1)")
        }
        #expect(!ledger.wasIssued("t0"))
        #expect(ledger.wasIssued("t1") && ledger.wasReplaced("t1"))
        #expect(ledger.wasIssued("t\(TokenLedger.capacity)") && !ledger.wasReplaced("t\(TokenLedger.capacity)"))
        #expect(ledger.issued.count == TokenLedger.capacity && ledger.replaced.count == TokenLedger.capacity)
        #expect(!ledger.wasIssued("never-seen"))
    }

    @Test("a refresh that keeps the same token replaces nothing")
    func unchangedRefresh() {
        var ledger = TokenLedger()
        ledger.noteRefresh(replacing: "same", with: "same")
        #expect(ledger.wasIssued("same") && !ledger.wasReplaced("same"))
    }

    @Test("a replaced token that becomes current again can be refreshed again")
    func tokenCurrentAgain() {
        var ledger = TokenLedger()
        ledger.noteRefresh(replacing: "a", with: "b")
        ledger.noteCurrent("a")
        #expect(!ledger.wasReplaced("a"))
    }

    @Test(
        "bearer tokens are read from Authorization values",
        arguments: [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc.def-1", "abc.def-1"),
            ("Bearer", nil), ("Bearer ", nil), ("Bearerabc", nil), ("Basic abc", nil), ("", nil),
            // Read by bytes, but as characters would be: a combining mark joins the space before it.
            ("Bearer ü-token", "ü-token"), ("Bearer \u{301}abc", nil), ("Bearer\u{301} abc", nil), ("Bearer  \t", "\t"),
        ] as [(String, String?)])
    func bearerParsing(value: String, token: String?) {
        #expect(BearerCredential.token(inAuthorization: value) == token)
    }
}
