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

    /// CPU time used by every thread of this process so far, in nanoseconds: unlike wall time,
    /// it does not grow while other processes have the cores.
    static var processCPUNanoseconds: Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
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

/// Fixed-point text for a figure, with thousands separators: `12,345` or `1.5`.
func formatted(_ value: Double, decimals: Int = 0) -> String {
    let text = String(format: "%.\(decimals)f", abs(value))
    let integer = text.prefix { $0 != "." }
    var grouped = ""
    for (offset, digit) in integer.enumerated() {
        if offset > 0, (integer.count - offset) % 3 == 0 { grouped.append(",") }
        grouped.append(digit)
    }
    return (value < 0 && text.contains(where: { $0 != "0" && $0 != "." }) ? "-" : "") + grouped + text.dropFirst(integer.count)
}
