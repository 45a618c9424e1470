import COpenSSL

/// OpenSSL, initialized once per process before Strata's first call into it, without the cleanup
/// OpenSSL otherwise runs from `atexit`.
///
/// A process can exit while connection threads are still closing their TLS sessions: a command
/// line tool returns from `main` right after its last response, and the pool closes connections on
/// their own threads. OpenSSL's exit-time cleanup frees the locks `SSL_free` takes, so a closing
/// thread crashed at exit (a SEGV in `CRYPTO_THREAD_unlock` under `SSL_free`, found by
/// ThreadSanitizer in a `strata-demo` child). Without the cleanup, OpenSSL's memory is released
/// with the process, as everything else is. Only the first initialization in a process decides: if
/// another library initialized OpenSSL first, its choice stands.
enum OpenSSLLibrary {
    /// Touch before any OpenSSL call that could be the process's first; initializes exactly once.
    static let initialized: Bool = strata_OPENSSL_init_without_atexit() == 1
}
