import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT (Ctrl-C) and SIGTERM as something to await, so `strata-demo sandbox` can stop its
/// server and remove its files instead of dying mid-way.
///
/// Only the `strata-demo` process installs this (a library must leave signal dispositions
/// alone): the default actions are turned off and the signals arrive as dispatch events.
/// Install it before printing anything a supervisor waits for, so an early signal is not lost.
final class TerminationSignals {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Starts catching SIGINT and SIGTERM.
    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    /// Waits for the first of the two signals.
    ///
    /// - Returns: The signal's number, or `nil` if the waiting task was cancelled.
    func next() async -> Int32? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}
