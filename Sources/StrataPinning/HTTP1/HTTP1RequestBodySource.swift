import Strata

/// Where an ``HTTP1Connection`` reads a request body that is written after the head (a file or
/// a stream), one chunk at a time, on the connection's thread.
protocol HTTP1RequestBodySource: Sendable {
    /// The next chunk of the body, waiting (blocking the calling thread) until one is ready or
    /// `deadline` passes; nil after the last one.
    ///
    /// - Throws: `TransportError`: ``/Strata/TransportError/Kind/invalidRequest`` with an underlying
    ///   ``HTTPRequestError/unreadableBody(_:)`` when reading the body failed (or produced
    ///   another length than it declared), ``/Strata/TransportError/Kind/timedOut`` when `deadline` passed.
    func next(deadline: ContinuousClock.Instant) throws(TransportError) -> ArraySlice<UInt8>?
}
