import COpenSSL

/// One server-side TLS session, owning its `SSL` and the two memory BIOs between OpenSSL and the
/// socket. OpenSSL never touches the socket: ciphertext moves through ``ByteChannel``, whose
/// sends never raise SIGPIPE and whose reads time out. Used by one connection thread at a time.
final class ServerTLSSession: ByteChannel {
    /// The largest plaintext record passed to `SSL_write` at once (TLS records carry 16 KiB).
    private static let writeSlice = 16 * 1024

    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private let transport: any ByteChannel
    private var scratch = [UInt8](repeating: 0, count: 32 * 1024)

    /// Takes ownership of `ssl` and runs the server handshake over `transport`.
    ///
    /// Returns `nil` when the handshake fails; `ssl` is freed either way.
    init?(owning ssl: OpaquePointer, over transport: any ByteChannel) {
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_bio(ssl, incoming, outgoing) // the SSL now owns both BIOs
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.transport = transport
        while true {
            let result = SSL_do_handshake(ssl)
            guard flush() else { return nil }
            if result == 1 { break }
            guard SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ, fill() else {
                ERR_clear_error()
                return nil
            }
        }
    }

    deinit { SSL_free(ssl) }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            if count > 0 { return Int(count) }
            // A TLS 1.3 client may send a key update or close_notify; answer, then read on.
            guard SSL_get_error(ssl, count) == SSL_ERROR_WANT_READ, flush(), fill() else {
                ERR_clear_error()
                return 0
            }
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = SSL_write(ssl, base + offset, Int32(min(bytes.count - offset, Self.writeSlice)))
            guard written > 0 else {
                ERR_clear_error()
                return false
            }
            offset += Int(written)
            guard flush() else { return false }
        }
        return true
    }

    /// Sends the ciphertext OpenSSL queued; `false` once the peer is gone.
    private func flush() -> Bool {
        while BIO_ctrl_pending(outgoing) > 0 {
            let count = scratch.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return true }
            guard scratch.withUnsafeBytes({ transport.send(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count)))) }) else {
                return false
            }
        }
        return true
    }

    /// Moves received ciphertext into OpenSSL; `false` at end of stream, on error or timeout.
    private func fill() -> Bool {
        let count = scratch.withUnsafeMutableBytes { transport.receive(into: $0) }
        guard count > 0 else { return false }
        return scratch.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32(count)) } == Int32(count)
    }
}
