import CAllocationCounter
import Foundation

/// Small statistics for interleaved benchmark rounds.
enum Measurement {
    /// The median of `values` (the mean of the middle two for an even count); 0 when empty.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// `duration` in nanoseconds.
    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    /// Heap allocations made by the whole process so far (Bench/CAllocationCounter).
    static var allocations: UInt64 { strata_bench_allocation_count() }

    /// The 1-minute load average, from /proc/loadavg; `nil` when it cannot be read.
    static var loadAverage: Double? {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").first.flatMap { Double($0) }
    }
}

/// Where `strata-bench` writes: the tables go to standard output, or to standard error under
/// `--json`, which keeps standard output for the one JSON object.
struct BenchOutput: Sendable {
    var json: Bool

    func line(_ text: String = "") {
        if json {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            print(text)
        }
    }
}

extension String {
    func padded(to width: Int) -> String { padding(toLength: max(width, count), withPad: " ", startingAt: 0) }
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// Fixed-point text for a figure, with thousands separators for large ones.
func formatted(_ value: Double, decimals: Int = 0) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.minimumFractionDigits = decimals
    formatter.maximumFractionDigits = decimals
    formatter.locale = Locale(identifier: "en_US")
    return formatter.string(from: NSNumber(value: value)) ?? String(value)
}
