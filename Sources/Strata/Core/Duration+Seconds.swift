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
        if abs(seconds) < 1 { return Double.fixed(seconds * 1_000, places: 2) + " ms" }
        let rounded = (seconds * 1_000).rounded() / 1_000
        return rounded == rounded.rounded() ? "\(Int64(rounded)) s" : "\(rounded) s"
    }
}

extension Double {
    /// `value` with exactly `places` decimals (`12.30`, halves rounded away from zero), without
    /// `String(format:)`, which costs microseconds per call on Linux and would run for every
    /// log line.
    package static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale: Int64 = 1
        for _ in 0..<max(0, places) { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 9e17 else { return "\(value)" }
        let units = Int64(scaled)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return sign + String(units) }
        let fraction = String(units % scale)
        return sign + String(units / scale) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
