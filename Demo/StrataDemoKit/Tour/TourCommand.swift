/// `strata-demo [tour]`: the guided tour's command line.
enum TourCommand {
    static let spec = CommandSpec(
        name: "tour",
        usage: ["[tour] [--verbose]"],
        overview: """
            Starts the sandbox HTTPS API on 127.0.0.1 (a private CA and certificate generated at startup) \
            and runs the recommended stack against it, narrating each step: one token refresh for \
            concurrent 401s, a retried 503, a 304 served from the ETag store, certificate pinning, \
            redacted logs, and a circuit that opens on a dependency that is down (the resilient stack). \
            Offline, loopback only, well under a second.
            """,
        arguments: ("", 0...0),
        options: [OptionSpec("-v", "--verbose", help: "Streams every debug-level log line of the tour to standard error.")],
        notes: [
            """
            EXIT STATUS:
              0 when every step did what it shows, 1 otherwise, 64 for a usage error.
            """
        ],
        examples: ["strata-demo", "strata-demo tour --verbose"])
}
