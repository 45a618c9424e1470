extension Duration {
    /// Whole nanoseconds, saturating at `Int64.max` (or `.min`) instead of trapping: a
    /// configured `.seconds(Int64.max)` ("never") must not crash the process.
    package var saturatingNanoseconds: Int64 { saturatingUnits(perSecond: 1_000_000_000, roundingUp: false) }

    /// Whole milliseconds rounded up (so a short wait never becomes a busy poll), saturating.
    package var saturatingMillisecondsRoundedUp: Int64 { saturatingUnits(perSecond: 1000, roundingUp: true) }

    private func saturatingUnits(perSecond: Int64, roundingUp: Bool) -> Int64 {
        let (seconds, attoseconds) = components
        let attosecondsPerUnit = 1_000_000_000_000_000_000 / perSecond
        let fraction =
            roundingUp
            ? (attoseconds + attosecondsPerUnit - 1) / attosecondsPerUnit
            : attoseconds / attosecondsPerUnit
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflowed else { return seconds < 0 ? .min : .max }
        let (total, overflowedAgain) = whole.addingReportingOverflow(fraction)
        guard !overflowedAgain else { return fraction < 0 ? .min : .max }
        return total
    }
}
