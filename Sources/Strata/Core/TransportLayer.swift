/// One decorator of a ``TransportStack``, not yet wrapped around its inner transport: the flat
/// way to build a stack, in the order requests travel.
///
/// Every decorator Strata ships has a factory named after its feature (`.logging(…)`,
/// `.observing(…)`, `.reauth(…)`, `.retry(…)`, `.etag(…)`) taking the same parameters as its
/// initializer, without `inner`. Wrap a decorator of your own with ``init(_:)``:
/// ```swift
/// let userAgent = TransportLayer { inner in UserAgentTransport(inner: inner, userAgent: "my-tool/1.0") }
/// ```
public struct TransportLayer: Sendable {
    private let makeTransport: @Sendable (any Transport) -> any Transport

    /// Creates a layer that builds its decorator around the inner transport it is given.
    ///
    /// - Parameter wrap: Returns the decorator for `inner`. Called once, when the stack is built.
    public init(_ wrap: @escaping @Sendable (_ inner: any Transport) -> any Transport) {
        makeTransport = wrap
    }

    /// The decorator around `inner`.
    func wrapping(_ inner: any Transport) -> any Transport { makeTransport(inner) }
}
