import Strata
import StrataConnect

/// A TLS connection ``VerifiedTLSConnector`` opened and checked, as StrataConnect's blocking
/// ``ByteStream``: for a dedicated thread, one exchange at a time, ``close()`` from anywhere.
package final class VerifiedTLSStream: ByteStream, Sendable {
    private let stream: TLSStream

    init(_ stream: TLSStream) { self.stream = stream }

    /// The TLS version negotiated, such as `TLSv1.3`.
    package var protocolVersion: String { stream.protocolVersion }

    package func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        try stream.write(bytes, deadline: deadline)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        try stream.read(into: buffer, deadline: deadline)
    }

    package func close() { stream.close() }

    package var endOfStreamIsAuthenticated: Bool { stream.endOfStreamIsAuthenticated }

    /// Whether the idle connection is still open with nothing unasked waiting (TLS records such
    /// as session tickets are looked at, not taken for data).
    package var isIdleAndOpen: Bool { stream.isIdleAndOpen }
}
