#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket listening on 127.0.0.1 only: nothing outside this machine can reach the sandbox.
struct ListeningSocket: Sendable {
    /// How many connections may wait to be accepted.
    static let backlog: Int32 = 128

    /// The listening descriptor; closed by the accept loop when it ends.
    let descriptor: Int32
    /// The bound port (the OS's choice when 0 was asked for).
    let port: Int

    /// Binds 127.0.0.1 on `port` (0 lets the OS choose a free one) and listens.
    ///
    /// - Throws: ``SandboxServerError`` with the failing call and `errno`'s text, such as a port
    ///   already in use.
    init(port: Int) throws(SandboxServerError) {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        // A restarted sandbox can take its port back at once, past the old one's TIME_WAIT.
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let error = SandboxServerError.cannotListen(port: port, errno: errno)
            close(descriptor)
            throw error
        }
        guard listen(descriptor, Self.backlog) == 0 else {
            let error = SandboxServerError.system(call: "listen", errno: errno)
            close(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    /// Waits for the next connection.
    ///
    /// - Returns: The accepted descriptor, or `nil` once the socket was shut down.
    func nextConnection() -> Int32? {
        while true {
            let client = accept(descriptor, nil, nil)
            if client >= 0 { return client }
            // A client that reset before we accepted is its problem, not the listener's.
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// Wakes a blocked ``nextConnection()``, which then returns `nil`.
    func shutDown() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Releases the descriptor; call once, from the accept loop, after it stopped accepting.
    func release() { close(descriptor) }
}
