import Dispatch
import Foundation
import Strata

/// Runs a blocking ``HostNameResolver`` on a thread of its own and waits for it only until a
/// deadline, so name resolution counts against the connect timeout.
///
/// `getaddrinfo` cannot be interrupted; at the deadline the caller gets `timedOut` and the
/// helper thread finishes in the background when the resolver finally answers (the system
/// resolver's own timeouts bound that), dropping the result.
package enum BoundedResolution {
    /// The addresses of `host:port` by `deadline`: an IP literal (an IPv6 one may keep its URL
    /// brackets) is parsed without any lookup, a name goes to `resolver` through
    /// ``resolve(_:port:with:deadline:)``.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/invalidRequest`` for a host
    ///   containing a NUL (C would resolve only the part before it),
    ///   ``/Strata/TransportError/Kind/cannotConnect`` when the name does not resolve,
    ///   ``/Strata/TransportError/Kind/timedOut`` when `deadline` comes first.
    package static func addresses(
        of host: String, port: Int, with resolver: any HostNameResolver,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) -> [SocketAddress] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !name.utf8.contains(0) else {
            throw TransportError(.invalidRequest, message: "refusing to resolve a host name containing a NUL byte")
        }
        if let literal = try? SystemHostNameResolver.addresses(of: name, port: port, numericOnly: true) {
            return literal
        }
        return try resolve(name, port: port, with: resolver, deadline: deadline)
    }

    /// The addresses of `host:port`, or `timedOut` when `deadline` comes first.
    package static func resolve(
        _ host: String, port: Int, with resolver: any HostNameResolver,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) -> [SocketAddress] {
        let outcome = LockedValue<Result<[SocketAddress], TransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Result { () throws(TransportError) in try resolver.resolve(host, port: port) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.name = "strata-resolve \(host)"
        thread.start()
        let wait = deadline - ContinuousClock.now
        let nanoseconds = max(0, wait.saturatingNanoseconds)
        guard done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success,
            let result = outcome.withLock({ $0 })
        else {
            throw TransportError(
                .timedOut,
                message: "resolving \(host) took longer than the connect timeout "
                    + "(which covers name resolution); check the DNS servers in /etc/resolv.conf or raise the connect timeout")
        }
        return try result.get()
    }
}
