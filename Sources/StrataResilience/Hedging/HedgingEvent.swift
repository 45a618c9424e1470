import Foundation
import Strata

/// What ``HedgingTransport`` did, reported through `TransportEvents` to every observer above it
/// (`LoggingTransport`, `ObservingTransport`).
///
/// A request that was answered before its first delay ended reports nothing.
public enum HedgingEvent: TransportEvent, Hashable {
    /// Why a hedge was not sent.
    public enum SkipReason: String, Sendable, Hashable {
        /// The ``HedgingBudget`` had less than one token: hedges already add the most extra load
        /// allowed.
        case budgetExhausted = "the hedging budget is exhausted"
        /// The delay would not end before the request's `RequestDeadline`.
        case deadlineWouldPass = "its delay would end after the request's deadline"
    }

    /// Hedge number `hedge` (1 for the first) is sent, `delay` after the first attempt, which
    /// has not answered. Observed under the hedge's own attempt number.
    case sent(hedge: Int, delay: Duration, method: HTTPMethod, url: URL?)

    /// Hedge number `hedge` answered first, `elapsed` after the first attempt was sent; the
    /// other attempts were cancelled.
    case won(hedge: Int, elapsed: Duration, method: HTTPMethod, url: URL?)

    /// The first attempt answered first, `elapsed` after it was sent, although `hedgesSent`
    /// hedges had gone out; they were cancelled.
    case lost(hedgesSent: Int, elapsed: Duration, method: HTTPMethod, url: URL?)

    /// Hedge number `hedge` was not sent, for `reason`; the attempts in flight go on.
    case skipped(hedge: Int, reason: SkipReason, method: HTTPMethod, url: URL?)

    /// `hedging.sent`, `hedging.won`, `hedging.lost` or `hedging.skipped`.
    public var name: String {
        switch self {
        case .sent: "hedging.sent"
        case .won: "hedging.won"
        case .lost: "hedging.lost"
        case .skipped: "hedging.skipped"
        }
    }

    /// `notice` for a hedge sent or refused by the budget (like a retry: expected, but worth
    /// seeing), `info` for which attempt won, `debug` for a hedge the deadline left no room for.
    public var logLevel: LogLevel {
        switch self {
        case .sent: .notice
        case .won, .lost: .info
        case .skipped(_, .budgetExhausted, _, _): .notice
        case .skipped(_, .deadlineWouldPass, _, _): .debug
        }
    }

    /// For example `hedge 1 of GET https://api.example.com/todos sent after 0.15 s without an
    /// answer`, durations rounded to milliseconds.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .sent(let hedge, let delay, let method, let url):
            "hedge \(hedge) of \(method) \(redaction.redact(url)) sent after \(Self.seconds(delay)) s without an answer"
        case .won(let hedge, let elapsed, let method, let url):
            "hedge \(hedge) of \(method) \(redaction.redact(url)) answered first, \(Self.seconds(elapsed)) s after the first attempt; the others were cancelled"
        case .lost(let hedgesSent, let elapsed, let method, let url):
            "the first attempt of \(method) \(redaction.redact(url)) answered first after \(Self.seconds(elapsed)) s; \(hedgesSent) hedge(s) cancelled"
        case .skipped(let hedge, let reason, let method, let url):
            "hedge \(hedge) of \(method) \(redaction.redact(url)) not sent: \(reason.rawValue)"
        }
    }

    /// `hedge` (or `hedges_sent`), and `delay_s`, `elapsed_s` or `reason`.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .sent(let hedge, let delay, _, _):
            ["hedge": String(hedge), "delay_s": Double.fixed(delay.inSeconds, places: 3)]
        case .won(let hedge, let elapsed, _, _):
            ["hedge": String(hedge), "elapsed_s": Double.fixed(elapsed.inSeconds, places: 3)]
        case .lost(let hedgesSent, let elapsed, _, _):
            ["hedges_sent": String(hedgesSent), "elapsed_s": Double.fixed(elapsed.inSeconds, places: 3)]
        case .skipped(let hedge, let reason, _, _):
            ["hedge": String(hedge), "reason": reason == .budgetExhausted ? "budget_exhausted" : "deadline_would_pass"]
        }
    }

    /// Seconds rounded to milliseconds, such as `0.15`.
    private static func seconds(_ duration: Duration) -> Double {
        (duration.inSeconds * 1_000).rounded() / 1_000
    }
}
