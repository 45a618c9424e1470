import COpenSSL

/// OpenSSL, initialized once per process before the sandbox's first call into it, without the
/// cleanup OpenSSL otherwise runs from `atexit`: the demo exits while server and client threads may
/// still be freeing TLS sessions, and that cleanup frees the locks they take (the same reason as
/// `StrataPinning`'s `OpenSSLLibrary`; whichever module initializes first, the choice is the same).
enum OpenSSLLibrary {
    /// Touch before any OpenSSL call that could be the process's first; initializes exactly once.
    static let initialized: Bool = strata_OPENSSL_init_without_atexit() == 1
}
