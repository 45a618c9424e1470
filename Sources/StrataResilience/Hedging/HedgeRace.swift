/// The attempts of one hedged request in flight, and what their failures mean, as a value: the
/// bookkeeping ``HedgingTransport`` keeps while it races them, tested without a transport.
///
/// The rules:
/// - The first response, whatever its status, wins (the transport cancels the others).
/// - An attempt that fails while another is in flight does not end the request: the others may
///   still answer.
/// - When the last attempt in flight fails, the request fails with the *first attempt's* error:
///   it is the one the request would have had without hedging, and the one a retry layer above
///   decides on (a hedge's error often only says it was cut short).
/// - When the first attempt fails before any hedge was sent, the request fails at once: a
///   failure is for a retry layer to handle, not a reason to hedge.
struct HedgeRace {
    /// Attempts sent and not yet failed.
    private(set) var inFlight = 1
    /// The number of the last hedge sent (1 for the first), 0 for none.
    private(set) var hedgesSent = 0
    private var primaryError: (any Error)?

    /// Whether the first attempt failed.
    var primaryFailed: Bool { primaryError != nil }

    /// Records that hedge number `hedge` was sent.
    mutating func sent(hedge: Int) {
        inFlight += 1
        hedgesSent = hedge
    }

    /// Records that attempt `attempt` (0 for the first) failed with `error`.
    ///
    /// - Returns: The error the request fails with when no attempt is left in flight, or `nil`
    ///   when another attempt may still answer.
    mutating func failed(attempt: Int, with error: any Error) -> (any Error)? {
        inFlight -= 1
        if attempt == 0 { primaryError = error }
        guard inFlight == 0 else { return nil }
        return primaryError ?? error
    }
}
