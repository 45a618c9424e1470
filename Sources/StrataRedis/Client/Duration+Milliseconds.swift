extension Duration {
    /// The duration in whole milliseconds, rounded up (so a short wait never becomes a busy
    /// poll) and saturating; 0 for negative durations. For `poll(2)` and Redis's `PX`.
    var wholeMilliseconds: Int {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        guard seconds < Int64(Int.max / 1_000) - 1 else { return .max }
        return Int(seconds) * 1_000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
