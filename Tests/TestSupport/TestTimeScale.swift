import Foundation

/// How much more wall-clock time this test run may take than a normal one: the factor in the
/// environment variable `STRATA_TEST_TIME_SCALE` (default 1).
///
/// `scripts/sanitizers.sh` sets it (ThreadSanitizer and AddressSanitizer make the same work take
/// 2–15 times longer), so a bound holds under the sanitizers without being loosened for the
/// normal run. Every wall-clock bound in the suite goes through ``scaled(_:)``:
/// `#expect(elapsed < TestTimeScale.scaled(.seconds(3)))`. So does an allowance a passing test
/// must never run out of (a generous request timeout); a timeout the test expects to fire does not.
public enum TestTimeScale {
    /// The factor; at least 1 in practice, and refused unless it is a positive number.
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["STRATA_TEST_TIME_SCALE"], !text.isEmpty else { return 1 }
        guard let value = Double(text), value.isFinite, value > 0 else {
            fatalError("STRATA_TEST_TIME_SCALE must be a positive number such as 10, not '\(text)'")
        }
        return value
    }()

    /// `duration` stretched by ``factor``.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * factor
    }
}
