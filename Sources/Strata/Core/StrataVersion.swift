/// The version of this Strata release, for the `User-Agent` the terminals send and for logs.
public enum StrataVersion {
    /// The release this source belongs to, such as `0.4.0`; raised with every release.
    public static let current = "0.4.0"

    /// `Strata/<version>`: the `User-Agent` `PinningTransport` sends for pinned hosts when the
    /// request has none (URLSession sends its own for the others).
    public static var userAgent: String { "Strata/\(current)" }
}
