/// The exit statuses `strata-demo` uses.
enum ExitStatus: Int32 {
    /// The command did what was asked; for `get`, a status below 400.
    case success = 0
    /// A runtime failure: a connection, TLS or pin check, a file, the tour.
    case failure = 1
    /// `get` received an HTTP error status (400 or above), as `curl --fail` reports it.
    case httpError = 22
    /// The command line is malformed (`EX_USAGE`).
    case usage = 64
}
