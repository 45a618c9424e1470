/// Why an attempt is worth retrying.
public enum RetryReason: Sendable, Hashable, CustomStringConvertible {
    /// The response's status is in ``RetryPolicy/retryableStatusCodes``.
    case status(Int)
    /// The network failed transiently (``TransportError/isTransient``).
    case transportError(TransportError.Kind)

    /// For example `status 503` or `cannot connect`.
    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .transportError(let kind): kind.rawValue
        }
    }
}
