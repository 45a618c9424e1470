import Foundation
import Strata
// Only to compare against: Strata itself never uses Mutex (ThreadSanitizer cannot see it on
// Linux; architecture decision 7).
import Synchronization

/// `strata-bench locks`: the cost of `LockedValue` (a heap `pthread_mutex_t`) against
/// `Synchronization.Mutex` (a futex word inline), for the short critical sections Strata has:
/// one thread alone (every pool acquire/release and event append when nothing competes), and
/// four threads on one lock (the pool under load, on this two-core machine also preempted while
/// holding it). The two are measured in alternating rounds in one run, so load on the machine
/// hits both alike; the median round is reported.
enum LockBenchmark {
    /// A lock under test: increments a shared counter `count` times.
    private struct Contender {
        var name: String
        var increment: @Sendable (_ count: Int) -> Void
        var value: @Sendable () -> Int
    }

    /// A `Mutex` (not copyable, so not capturable) on the heap, as a class holding one would be.
    private final class MutexBox: Sendable {
        let mutex = Mutex(0)
    }

    static func run(iterations: Int, rounds: Int = 7) {
        let locked = LockedValue(0)
        let box = MutexBox()
        let contenders = [
            Contender(
                name: "LockedValue (pthread_mutex_t)",
                increment: { count in for _ in 0..<count { locked.withLock { $0 &+= 1 } } },
                value: { locked.withLock { $0 } }),
            Contender(
                name: "Synchronization.Mutex",
                increment: { count in for _ in 0..<count { box.mutex.withLock { $0 &+= 1 } } },
                value: { box.mutex.withLock { $0 } }),
        ]
        print("locks: \(iterations) increments per round, \(rounds) rounds alternating, median ns per lock/unlock")
        for threads in [1, 4] {
            var samples = Array(repeating: [Double](), count: contenders.count)
            for _ in 0..<rounds {
                for (index, contender) in contenders.enumerated() {
                    let before = contender.value()
                    let seconds = time(threads: threads, perThread: iterations / threads, contender.increment)
                    // The work really happened (and the optimizer could not drop it).
                    precondition(contender.value() - before == iterations / threads * threads)
                    samples[index].append(seconds * 1e9 / Double(iterations / threads * threads))
                }
            }
            let medians = samples.map { $0.sorted()[$0.count / 2] }
            for (contender, median) in zip(contenders, medians) {
                let label = "\(contender.name), \(threads == 1 ? "uncontended (1 thread)" : "contended (\(threads) threads)")"
                print(label.padding(toLength: 64, withPad: " ", startingAt: 0) + String(format: "%7.1f ns", median))
            }
            print(String(format: "  LockedValue / Mutex: %.2f×", medians[0] / medians[1]))
        }
    }

    /// Seconds for `threads` threads to run `body(perThread)` each, started together.
    private static func time(threads: Int, perThread: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
        let ready = DispatchSemaphore(value: 0), start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            Thread {
                ready.signal()
                start.wait()
                body(perThread)
                done.signal()
            }.start()
        }
        for _ in 0..<threads { ready.wait() }
        let began = ContinuousClock.now
        for _ in 0..<threads { start.signal() }
        for _ in 0..<threads { done.wait() }
        let elapsed = ContinuousClock.now - began
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
