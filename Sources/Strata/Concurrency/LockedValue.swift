#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that is only reachable while holding its lock: the one lock type for shared mutable
/// state in every Strata module and in the package's test servers.
///
/// Why not `Synchronization.Mutex`: on Linux, ThreadSanitizer does not see `Mutex` (it reports
/// races between accesses correctly serialized by it, and so cannot find real ones). A
/// heap-allocated `pthread_mutex_t`, the design of swift-nio's `NIOLock`, is fully visible to the
/// sanitizers, so `swift test --sanitize=thread` is a real check (architecture decision 7).
///
/// Keep critical sections short and never suspend or block inside `withLock`: the lock is held
/// by a thread, and waiting threads are blocked, not suspended.
package final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, under `mutex`.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // On the heap too, not a stored property: ThreadSanitizer reports a stored property's
    // exclusivity checks as accesses, and for a zero-size value (`LockedValue(())`, a bare lock)
    // they land on the object itself, where `lock()` reads `mutex` before holding it: a race
    // reported between two correctly locked sections (four threads suffice to show it).
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// Creates a lock guarding `initialValue`.
    package init(_ initialValue: sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @inlinable
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result)
        throws(E) -> sending Result
    {
        lock()
        defer { unlock() }
        return try body(&value.pointee)
    }

    @inlinable
    func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    @inlinable
    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }
}
