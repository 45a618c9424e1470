import Foundation

/// Resident memory, thread count and open file descriptors of this process, from /proc/self
/// (Linux).
struct ProcessVitals: CustomStringConvertible {
    var residentKilobytes: Int
    var threads: Int
    var openFiles: Int

    static func now() -> ProcessVitals {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            // "VmRSS:\t  123456 kB", "Threads:\t17"
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) } ?? 0
        }
        let openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return ProcessVitals(residentKilobytes: field("VmRSS"), threads: field("Threads"), openFiles: openFiles)
    }

    var description: String {
        String(format: "RSS %.1f MB, %d threads, %d open files", Double(residentKilobytes) / 1024, threads, openFiles)
    }
}
