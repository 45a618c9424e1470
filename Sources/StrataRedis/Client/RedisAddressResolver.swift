#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata

/// Resolves a host name to socket addresses within a deadline.
///
/// `getaddrinfo` blocks and has no timeout of its own (a dead DNS server stalls it for the
/// resolver's full retry schedule, often 10 s or more). An IP literal is converted at once
/// (`AI_NUMERICHOST` does no I/O); a name is looked up on a thread of its own, which the caller
/// stops waiting for at the deadline and which then finishes and frees its result alone.
enum RedisAddressResolver {
    /// One address `connect(2)` can be called with, copied out of `getaddrinfo`'s list.
    struct Address: @unchecked Sendable {
        // @unchecked: sockaddr_storage is a plain C value with no pointers; it is copied, never shared.
        var family: Int32
        var storage: sockaddr_storage
        var length: socklen_t
    }

    /// The addresses of `host` for TCP `port`, in the order the system prefers.
    ///
    /// - Throws: ``RedisClientError/cannotResolve(peer:reason:)`` when the name does not
    ///   resolve, ``RedisClientError/connectTimedOut(peer:)`` when the deadline passes first.
    static func resolve(_ host: String, port: Int, peer: String,
                        deadline: ContinuousClock.Instant) throws(RedisClientError) -> [Address] {
        if case .success(let addresses) = lookUp(host, port: port, flags: AI_NUMERICHOST) { return addresses }
        let outcome = LockedValue<Result<[Address], RedisClientError>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = lookUp(host, port: port, flags: 0).mapError { RedisClientError.cannotResolve(peer: peer, reason: $0.reason) }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.name = "Strata.RedisETagStore.resolve"
        thread.start()
        let remaining = max(0, (deadline - ContinuousClock.now).wholeMilliseconds)
        guard finished.wait(timeout: .now() + .milliseconds(remaining)) == .success,
              let result = outcome.withLock({ $0 }) else {
            throw .connectTimedOut(peer: peer)
        }
        return try result.get()
    }

    private struct LookupFailure: Error { var reason: String }

    private static func lookUp(_ host: String, port: Int, flags: Int32) -> Result<[Address], LookupFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = flags | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { return .failure(LookupFailure(reason: String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let source = entry.ai_addr, Int(entry.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(entry.ai_addrlen)))
            }
            addresses.append(Address(family: entry.ai_family, storage: storage, length: entry.ai_addrlen))
        }
        return addresses.isEmpty ? .failure(LookupFailure(reason: "no TCP address")) : .success(addresses)
    }
}
