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

    /// VmRSS from /proc/self/status, in bytes; 0 where it cannot be read.
    public static var bytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }
}
