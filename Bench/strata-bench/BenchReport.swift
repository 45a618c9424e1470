import Foundation

/// The report of `strata-bench`, `layers` and `pinned`: the tables, or under `--json` one JSON
/// object with the same figures.
struct BenchReport: Encodable {
    struct Machine: Encodable {
        var cores: Int
        var loadAverageBefore: Double?
        var loadAverageAfter: Double?
    }

    var machine: Machine
    var layers: LayerBenchmark.Report?
    var pinned: PinnedBenchmark.Report?

    static func run(_ options: BenchOptions) async throws {
        let output = BenchOutput(json: options.json)
        var report = BenchReport(
            machine: Machine(
                cores: ProcessInfo.processInfo.activeProcessorCount,
                loadAverageBefore: Measurement.loadAverage))
        output.line(
            "strata-bench: \(report.machine.cores) cores, load average "
                + (report.machine.loadAverageBefore.map { formatted($0, decimals: 2) } ?? "unknown")
                + (options.quick ? ", quick run (rough figures)" : ""))
        if options.command != .pinned {
            output.line()
            report.layers = try await LayerBenchmark.run(options, output: output)
        }
        if options.command != .layers {
            output.line()
            report.pinned = try await PinnedBenchmark.run(options, output: output)
        }
        report.machine.loadAverageAfter = Measurement.loadAverage
        output.line()
        output.line("load average after: " + (report.machine.loadAverageAfter.map { formatted($0, decimals: 2) } ?? "unknown"))
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        }
    }
}
