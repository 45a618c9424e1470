#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport

/// Sends raw bytes to a loopback port and returns everything the server sent until it closed
/// the connection: for requests no well-behaved client would send.
///
/// The blocking socket calls run on a thread of their own, never on Swift's cooperative pool;
/// a read timeout (scaled by `STRATA_TEST_TIME_SCALE`) ends a test whose server never closes.
enum RawClient {
    /// Connects to 127.0.0.1:`port`, writes `request`, half-closes when `finishSending`, and reads
    /// until end of stream.
    static func exchange(port: Int, _ request: String, finishSending: Bool = false) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                continuation.resume(returning: blockingExchange(port: port, Data(request.utf8), finishSending: finishSending))
            }.start()
        }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func connects(port: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let descriptor = connected(port: port)
                if descriptor >= 0 { close(descriptor) }
                continuation.resume(returning: descriptor >= 0)
            }.start()
        }
    }

    private static func connected(port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            return -1
        }
        var timeout = timeval(tv_sec: Int(10 * TestTimeScale.factor), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private static func blockingExchange(port: Int, _ request: Data, finishSending: Bool) -> String {
        let descriptor = connected(port: port)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if finishSending { shutdown(descriptor, Int32(SHUT_WR)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while case let count = recv(descriptor, &buffer, buffer.count, 0), count > 0 {
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }
}
