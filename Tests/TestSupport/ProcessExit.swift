import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Process {
    /// Blocks the calling thread until the child has exited; `terminationStatus` is then final.
    ///
    /// Use it instead of `waitUntilExit()`. On Linux, Foundation's version runs the calling
    /// thread's run loop over and over, and a run loop with no sources returns at once: the wait
    /// spins a core for as long as the child lives. Measured in a full `swift test` on 2 cores,
    /// the demo tests' waiters alone took 2 CPU-seconds of the first 12, and the suite stalled
    /// for 10–14 s. Foundation's own reaper updates `isRunning`, so polling it costs nothing.
    ///
    /// It blocks: call it from a thread of its own (TestServer's `offCooperativePool`), never
    /// from the cooperative pool.
    public func waitForExit() {
        while isRunning { usleep(2_000) }
    }
}
