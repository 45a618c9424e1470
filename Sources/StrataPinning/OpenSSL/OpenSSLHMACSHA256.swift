import COpenSSL
import Foundation
import Strata

/// HMAC-SHA-256 (RFC 2104, FIPS 198-1) through OpenSSL's `EVP_MAC`, and the constant-time
/// comparison of its codes, for the modules of this package that authenticate what they store
/// under a secret key (`RedisETagStore`'s signed entries). Only byte arrays go in and out.
///
/// `package`, not public: it is a building block for Strata's own stores, not a crypto API.
/// (Strata core keeps a pure-Swift HMAC for `FileETagStore`, because it links no OpenSSL.)
package enum OpenSSLHMACSHA256 {
    /// The length of a code in bytes: SHA-256's output.
    package static let codeByteCount = 32

    /// Returns the code of `message` under `key`.
    ///
    /// - Parameters:
    ///   - message: The bytes authenticated, in parts taken in order as if concatenated, so a
    ///     large body is never copied into one buffer with what precedes it.
    ///   - key: The secret; any length but zero (HMAC hashes a key longer than 64 bytes first).
    /// - Returns: ``codeByteCount`` bytes.
    /// - Throws: ``OpenSSLHMACSHA256Error`` when the key is empty or OpenSSL cannot compute the
    ///   code (no HMAC or SHA-256 in its providers, no memory), with OpenSSL's reason.
    package static func authenticationCode(
        for message: [any ContiguousBytes], key: [UInt8]
    ) throws(OpenSSLHMACSHA256Error) -> [UInt8] {
        // OpenSSL 3.0 refuses a NULL key and treats a zero-length one inconsistently across
        // versions; an empty key authenticates nothing anyway.
        guard !key.isEmpty else { throw OpenSSLHMACSHA256Error(reason: "the key is empty") }
        OpenSSLErrorQueue.clear()
        guard let context = MACContext() else { throw .drained(fallback: "EVP_MAC_fetch(HMAC) or EVP_MAC_CTX_new failed") }
        let initialized = key.withUnsafeBufferPointer { keyBytes in
            // OSSL_PARAM keeps the pointers it is given, so both strings outlive the call here.
            // "digest" is OSSL_MAC_PARAM_DIGEST.
            "digest".withCString { name in
                "SHA256".withCString { digest in
                    let parameters = [
                        OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                        OSSL_PARAM_construct_end(),
                    ]
                    return EVP_MAC_init(context.pointer, keyBytes.baseAddress, keyBytes.count, parameters)
                }
            }
        }
        guard initialized == 1 else { throw .drained(fallback: "EVP_MAC_init failed") }
        for part in message {
            let updated = part.withUnsafeBytes { bytes in
                // An empty part adds nothing; its buffer may have no address to pass.
                bytes.isEmpty ? 1 : EVP_MAC_update(context.pointer, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            }
            guard updated == 1 else { throw .drained(fallback: "EVP_MAC_update failed") }
        }
        var code = [UInt8](repeating: 0, count: codeByteCount)
        var written = 0
        guard EVP_MAC_final(context.pointer, &code, &written, code.count) == 1, written == codeByteCount else {
            throw .drained(fallback: "EVP_MAC_final failed")
        }
        return code
    }

    /// Returns whether two codes are equal, in time that does not depend on where they differ
    /// (`CRYPTO_memcmp`), so a forger cannot learn a valid code byte by byte from timings.
    ///
    /// Codes of different lengths are unequal at once: their lengths are public.
    package static func isEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}

/// Why ``OpenSSLHMACSHA256`` computed no code. Never holds the key or the message.
package struct OpenSSLHMACSHA256Error: Error, Hashable, CustomStringConvertible {
    /// OpenSSL's reason, or which precondition failed.
    package let reason: String

    /// Creates an error with `reason`, which must not hold the key or the message.
    package init(reason: String) {
        self.reason = reason
    }

    /// The calling thread's OpenSSL errors, or `fallback` when it queued none.
    static func drained(fallback: String) -> Self {
        Self(reason: OpenSSLErrorQueue.drain(fallback: fallback))
    }

    /// `HMAC-SHA-256 failed: ` and the reason.
    package var description: String { "HMAC-SHA-256 failed: \(reason)" }
}

/// An owned `EVP_MAC_CTX` for HMAC with its own reference to the fetched `EVP_MAC`.
private final class MACContext {
    /// The owned pointer; freed (and its key material cleansed by OpenSSL) in `deinit`.
    let pointer: OpaquePointer

    /// Makes a context for the process's fetched HMAC, or returns nil.
    init?() {
        guard let context = FetchedHMAC.shared.makeContext() else { return nil }
        pointer = context
    }

    deinit {
        EVP_MAC_CTX_free(pointer)
    }
}

/// HMAC fetched from the default providers once per process, not once per code: a fetch is a
/// lookup in OpenSSL's provider store, taken under its lock, which every code used to repeat.
///
/// A fetched `EVP_MAC` is immutable and reference-counted, so any thread may make a context from
/// it (`EVP_MAC_CTX_new` takes a reference of its own). This one is never freed: it lives as long
/// as the process, like the OpenSSL library state (``OpenSSLLibrary``).
private final class FetchedHMAC: Sendable {
    static let shared = FetchedHMAC()

    /// The fetched algorithm, or nil when no provider offers HMAC (then every code fails, as
    /// each fetch would have). Behind the lock so the sharing is checked by the compiler, not
    /// assumed; the lock is held only to make a context.
    private let mac: LockedValue<OpaquePointer?>

    private init() {
        _ = OpenSSLLibrary.initialized
        mac = LockedValue(EVP_MAC_fetch(nil, "HMAC", nil))
    }

    /// A new context for HMAC, owned by the caller, or nil.
    func makeContext() -> OpaquePointer? {
        mac.withLock { mac in mac.flatMap { EVP_MAC_CTX_new($0) } }
    }
}
