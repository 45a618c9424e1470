import Foundation

/// This process's resident memory, for tests that bound how much a streamed body costs.
///
/// Under a sanitizer the figure means nothing (AddressSanitizer keeps freed memory in quarantine,
/// ThreadSanitizer shadows every byte), so `scripts/sanitizers.sh` sets `STRATA_SANITIZER` and
/// ``isMeaningful`` is false: tests still stream, and check the bound only when it means something.
public enum ResidentMemory {
    /// Whether a bound on resident memory says anything about this run.
    public static let isMeaningful = (ProcessInfo.processInfo.environment["STRATA_SANITIZER"] ?? "").isEmpty

    /// The bytes streamed in a test that bounds memory: `normal`, or a smaller amount under a
    /// sanitizer, where the bound is not checked and the instrumented code is slow.
    public static func streamedBytes(_ normal: Int, sanitized: Int = 16 << 20) -> Int {
        isMeaningful ? normal : min(normal, sanitized)
    }

    /// The resident set now (VmRSS), in bytes; 0 where /proc is not there.
    public static var bytes: Int { field("VmRSS") }

    /// The highest resident set since the last ``resetPeak()`` (VmHWM), in bytes.
    public static var peak: Int { field("VmHWM") }

    /// Restarts the peak from the current resident set (writing 5 to /proc/self/clear_refs,
    /// Linux 4.0+), so ``peak`` covers only what follows. Returns false when the kernel refused.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
