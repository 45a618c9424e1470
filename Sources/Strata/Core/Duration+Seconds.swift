extension Duration {
    /// The duration in seconds, as a `Double` (for arithmetic such as backoff and for display).
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `seconds` as a duration, clamped to `0...limit`; NaN counts as zero. A `Double` too large
    /// for a `Duration` would trap, hence the clamp.
    package static func clampedSeconds(_ seconds: Double, limit: Duration) -> Duration {
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        guard seconds < limit.inSeconds else { return limit }
        return .seconds(seconds)
    }
}

extension Duration {
    /// The duration for a log line: milliseconds below a second (`4.39 ms`), seconds above
    /// (`1.5 s`), rather than `Duration`'s own attosecond-precise text.
    package var readable: String {
        let seconds = inSeconds
        if abs(seconds) < 1 { return String(format: "%.2f ms", seconds * 1_000) }
        let rounded = (seconds * 1_000).rounded() / 1_000
        return rounded == rounded.rounded() ? "\(Int64(rounded)) s" : "\(rounded) s"
    }
}
