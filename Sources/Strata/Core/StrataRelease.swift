/// This Strata release, for the `User-Agent` the terminals send and for logs.
///
/// (Not `StrataVersion`: the symbol-graph tools skip a type named `<Module>Version`, so it would
/// be missing from the API listing and the documentation.)
public enum StrataRelease {
    /// The release this source belongs to, such as `0.4.0`; raised with every release.
    public static let version = "0.4.0"

    /// `Strata/<version>`: the `User-Agent` `PinningTransport` sends for pinned hosts when the
    /// request has none (URLSession sends its own for the others).
    public static var userAgent: String { "Strata/\(version)" }
}
