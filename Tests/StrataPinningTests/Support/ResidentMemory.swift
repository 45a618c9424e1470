import Foundation

/// The process's resident memory as Linux reports it in /proc/self/status, for tests that bound
/// what a transfer costs.
enum ResidentMemory {
    /// The resident set now (VmRSS), in bytes; 0 where /proc is not there.
    static var current: Int { field("VmRSS") }

    /// The highest resident set since the last ``resetPeak()`` (VmHWM), in bytes.
    static var peak: Int { field("VmHWM") }

    /// Restarts the peak from the current resident set (writing 5 to /proc/self/clear_refs,
    /// Linux 4.0+), so ``peak`` covers only what follows. Returns false when the kernel refused.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
