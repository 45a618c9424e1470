/// The text of `strata-demo --help`; help lines are sentences.
enum HelpText {
    /// The usage line printed with every usage error.
    static let usage = "Usage: strata-demo [tour] [--verbose]\n       strata-demo pin <host>[:port] [--ca <pem-file>]"

    /// The whole help text.
    static let full = """
        OVERVIEW: A guided tour of Strata, composable HTTP transports for Swift on Linux.

        \(usage)

        COMMANDS:
          tour (default)          Starts a sandbox HTTPS API on 127.0.0.1 with a private CA and runs
                                  the recommended stack against it, narrating each step: one token
                                  refresh for concurrent 401s, a retried 503, a 304 served from the
                                  ETag store, certificate pinning, and redacted logs.
          pin <host>[:port]       Connects over TLS, verifies the chain and prints each certificate's
                                  public-key pin, leaf first, ready for PublicKeyPinningEvaluator(pins:).
                                  The port defaults to 443.

        OPTIONS:
          -v, --verbose           Streams every debug-level log line of the tour to standard error.
          --ca <pem-file>         Trusts only the certificates in this PEM file instead of the system
                                  CA bundle (for a private CA such as the tour's sandbox).
          -h, --help              Shows this help.

        EXIT STATUS:
          0 on success, 1 when the tour or the connection fails, 64 for a usage error.

        EXAMPLES:
          swift run strata-demo
          swift run strata-demo pin example.com
          swift run strata-demo pin localhost:8443 --ca Tests/Fixtures/Pinning/ca.pem
        """
}
