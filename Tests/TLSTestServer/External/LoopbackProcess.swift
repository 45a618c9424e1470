#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata

/// A server program from a Debian package (nginx, nghttpd) run by a test or benchmark on a
/// loopback port, in a temporary directory of its own, stopped (and the directory removed) when
/// the value goes away.
///
/// The port is chosen by the OS: a socket is bound to port 0 and closed, and the program is
/// started on that port; in the rare case another process takes it in between, the program
/// fails to bind and is started again on a new port.
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
    public init(executable: String, prepare: (_ port: Int, _ directory: URL) throws -> Void = { _, _ in },
                arguments: (_ port: Int, _ directory: URL) -> [String]) throws {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lastError = ""
        for _ in 0..<3 {
            let port = try Self.freePort()
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

    deinit { stop() }

    /// Stops the program and removes its directory.
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
        process.waitUntilExit()
    }

    /// A port the OS considers free on 127.0.0.1.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket() failed: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw StartError(description: "cannot bind a loopback port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Polls until a TCP connect to the port succeeds (at most about 5 s), or the program exits.
    private static func waitUntilListening(port: Int, process: Process) -> Bool {
        for _ in 0..<500 {
            guard process.isRunning else { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return true }
            usleep(10_000)
        }
        return false
    }
}
