import COpenSSL

/// The calling thread's OpenSSL error queue, turned into Swift strings right where a call fails.
///
/// OpenSSL keeps errors in a per-thread queue. Every function here runs synchronously on one
/// thread, so clearing before a call and draining after it reads exactly that call's errors.
enum OpenSSLErrorQueue {
    /// A cap on how many queued errors are read: one failing call queues a handful at most.
    static let maximumDrained = 8

    /// Discards errors left by earlier calls on this thread.
    static func clear() {
        _ = OpenSSLLibrary.initialized // clear() comes before Strata's OpenSSL calls
        ERR_clear_error()
    }

    /// Removes every queued error and returns their texts, oldest first, joined by "; ".
    ///
    /// - Parameter fallback: The text returned when OpenSSL queued nothing.
    static func drain(fallback: String) -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            guard messages.count < maximumDrained else { continue }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? fallback : messages.joined(separator: "; ")
    }
}
