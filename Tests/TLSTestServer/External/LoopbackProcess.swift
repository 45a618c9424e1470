#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata
import TestServer
import TestSupport

/// A server program from a Debian package (nginx, nghttpd) run by a test or benchmark on a
/// loopback port, in a temporary directory of its own, stopped (and the directory removed) when
/// the value goes away.
///
/// The port is chosen by the OS: a socket is bound to port 0 and closed, and the program is
/// started on that port; in the rare case another process takes it in between, the program
/// fails to bind and is started again on a new port. Starting blocks (spawn, then polling the
/// port): async callers use the servers' `start` functions, which run it off the cooperative pool.
public final class LoopbackProcess: Sendable {
    /// A failure to start the program.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port the program listens on (127.0.0.1).
    public let port: Int
    /// The program's own directory (configuration, logs, files it serves).
    public let directory: URL
    private let process: LockedValue<Process>

    /// Whether `executable` exists and may be run.
    public static func isInstalled(_ executable: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: executable)
    }

    /// Starts `executable` with the arguments `arguments` makes for a port and the directory,
    /// after `prepare` wrote what the program needs there; waits until the port accepts connections.
    ///
    /// - Throws: ``StartError`` when the program does not listen within a few seconds (its
    ///   standard error is included).
    public init(
        executable: String, prepare: (_ port: Int, _ directory: URL) throws -> Void = { _, _ in },
        arguments: (_ port: Int, _ directory: URL) -> [String]
    ) throws {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lastError = ""
        for _ in 0..<3 {
            // Bound by the OS and released at once (as the Redis test server does); see
            // waitUntilListening for another server being given it meanwhile.
            let port = try RefusingPort().port
            try prepare(port, directory)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments(port, directory)
            process.currentDirectoryURL = directory
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.directory = directory
                self.process = LockedValue(process)
                return
            }
            Self.end(process)
            lastError = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        try? FileManager.default.removeItem(at: directory)
        throw StartError(description: "\(name) did not start listening: \(lastError)")
    }

    deinit {
        // Signal only: waiting here would block whichever thread releases the value, often a
        // cooperative one. Foundation's Process reaps the child when it exits.
        process.withLock { process in
            if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the program, waits for it to exit, and removes its directory. Blocks.
    public func stop() {
        process.withLock { Self.end($0) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGKILL, not SIGTERM: a child inherits the test process's blocked-signal mask, and
    /// programs that do not reset it (nginx without its master process, nghttpd) never see
    /// SIGTERM. Nothing needs a graceful exit here.
    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    /// Polls until the program itself listens on the port (at most about 5 s), or it exits.
    ///
    /// "Itself": the port was free when it was chosen, but another test's server can be given it
    /// before the program binds it. The program then fails to bind and exits; a connect made to
    /// check would reach that other server instead, report this program ready, and be counted
    /// as a connection by a test asserting on its server's connections. So readiness is read
    /// from /proc, without connecting: a socket listening on 127.0.0.1:port among the program's
    /// descriptors. Where /proc cannot tell, a connect is the check.
    private static func waitUntilListening(port: Int, process: Process) -> Bool {
        for _ in 0..<500 {
            guard process.isRunning else { return false }
            switch listens(process.processIdentifier, on: port) {
            case true?: return true
            case false?: break
            case nil: if connects(to: port) { return true }
            }
            usleep(10_000)
        }
        return false
    }

    /// Whether process `pid` holds a socket listening on 127.0.0.1:`port`; nil when /proc cannot tell.
    private static func listens(_ pid: Int32, on port: Int) -> Bool? {
        guard let table = contents(of: "/proc/net/tcp") else { return nil }
        // Each line: sl local_address rem_address st ... inode; 127.0.0.1 is 0100007F, LISTEN is 0A.
        let hex = String(port, radix: 16, uppercase: true)
        let local = "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        var inodes: Set<Substring> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1] == local, fields[3] == "0A" else { continue }
            inodes.insert(fields[9])
        }
        guard !inodes.isEmpty else { return false }
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        return descriptors.contains { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return false }
            return inodes.contains(target.dropFirst("socket:[".count).dropLast())
        }
    }

    /// The whole of a /proc file, read to the end with POSIX calls: its size reads as 0, and
    /// `String(contentsOfFile:)` then stops after one 4 KiB page (measured on /proc/self/smaps),
    /// which /proc/net/tcp passes once about 27 sockets are open.
    private static func contents(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a TCP connect to 127.0.0.1:`port` succeeds.
    private static func connects(to port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// The lines of a file in the process's directory (a log the server appends to), empty
    /// when it does not exist yet.
    public func lines(of file: String) -> [String] {
        // Read with POSIX calls: FoundationEssentials' String(contentsOf:) leaked its 4 KB read
        // buffer here once under LeakSanitizer (servers append to their logs while a test reads).
        let descriptor = open(directory.appendingPathComponent(file).path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes += chunk[..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
