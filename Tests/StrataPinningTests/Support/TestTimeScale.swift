import Foundation

/// The factor every wall-clock bound in a test is multiplied by: `STRATA_TEST_TIME_SCALE`
/// (default 1), raised under sanitizers, which slow tests down 2–5×. Bounds are scaled, never weakened.
enum TestTimeScale {
    static let factor: Int = ProcessInfo.processInfo.environment["STRATA_TEST_TIME_SCALE"].flatMap { Int($0) }.map { max(1, $0) } ?? 1
}
