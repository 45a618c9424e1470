import COpenSSL

/// An owned, growable OpenSSL memory BIO that OpenSSL prints into.
final class MemoryBIO {
    /// The owned pointer; freed in `deinit`.
    let pointer: OpaquePointer

    /// Creates an empty memory BIO, or returns nil when OpenSSL cannot allocate one.
    init?() {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written so far, decoded as UTF-8 (invalid bytes become U+FFFD).
    func contents() -> String {
        var start: UnsafeMutablePointer<CChar>?
        let length = strata_BIO_get_mem_data(pointer, &start)
        guard let start, length > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: start, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }
}
