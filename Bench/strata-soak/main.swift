// strata-soak: the recommended stack (Logging → Reauth → Retry → ETag → Pinning) against the
// loopback TLS server injecting faults (5% 503, 1% connection resets, the access token retired
// every 1,000 requests), for three rounds of 10,000 requests from 64 concurrent tasks.
//
//   scripts/soak.sh [--quick]        (builds in release, then runs this)
//   .build/release/strata-soak [--quick]
//
// --quick: 2,000 requests a round (the token still retired every 1,000). Checked after every round, and
// the exit status is 1 if anything failed:
// - zero lost: every request came back (a response or an error);
// - every idempotent request succeeded (GET, PUT, POST with an Idempotency-Key);
// - no POST without an Idempotency-Key reached the server twice with a valid token;
// - exactly one refresh per token generation the server refused, and one per expiry overall
//   (the last expiry may come after the last request that would notice it);
// - no access token in any log line;
// - resident memory, thread count and open files flat: round 3 against round 1 (limits below).
import Foundation
import Strata

let quick = CommandLine.arguments.contains("--quick")
let requestsPerRound = quick ? 2_000 : 10_000
// Denser expiries would make a request whose resend is retried meet the next expiry too, and
// a request is resent after a 401 only once (by design: ReauthTransport).
let expiryEvery = 1_000
let concurrency = 64
let rounds = 3
/// Growth allowed from the end of round 1 to the end of round 3. A leak of half a kilobyte per
/// request would add 10 MB over 20,000 requests; thread count may differ by a few idle
/// dispatch workers between two snapshots.
let rssGrowthLimitKB = 10 * 1024
let threadGrowthLimit = 4
let openFileGrowthLimit = 4

let server = try SoakServer(expiryEvery: expiryEvery, seed: 0x50A4)
let stack = try SoakStack(server: server)
var failures: [String] = []
@MainActor func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { failures.append(message()) }
}

print(
    "strata-soak: \(rounds) rounds × \(requestsPerRound) requests, \(concurrency) concurrent tasks, "
        + "token retired every \(expiryEvery) requests, 5% 503, 1% resets")
let before = ProcessVitals.now()
print("before: \(before)")
var vitals: [ProcessVitals] = []
var totalExpiries = 0
var totalRefreshes = 0
for number in 1...rounds {
    let refreshesBefore = stack.refreshes.withLock { $0 }
    // A watchdog: requests that never come back would otherwise hang the run silently.
    let watchdog = Task.detached {
        try await Task.sleep(for: .seconds(quick ? 120 : 600))
        print("round \(number) did not finish in time: requests were lost")
        exit(1)
    }
    let result = await SoakRound(number: number, requests: requestsPerRound, concurrency: concurrency).run(stack, server: server)
    watchdog.cancel()
    let tally = server.takeTally()
    let refreshes = stack.refreshes.withLock { $0 } - refreshesBefore
    totalExpiries += tally.expiries
    totalRefreshes += refreshes
    let after = ProcessVitals.now()
    vitals.append(after)

    print(
        String(
            format: "round %d: %d requests in %.1f s (%.0f req/s), %d reached the server", number, result.completed,
            result.seconds, Double(result.completed) / result.seconds, tally.arrivals))
    print(
        "  injected: \(tally.serviceUnavailable) × 503, \(tally.resets) resets, \(tally.expiries) token expiries; "
            + "\(refreshes) refreshes; \(result.revalidated) GETs revalidated (\(tally.notModified) × 304)")
    for kind in SoakRound.Kind.allCases {
        let outcomes = (result.outcomes[kind] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }
        print("  \(kind.rawValue): \(outcomes.joined(separator: ", "))")
    }
    print("  \(after); \(stack.logger.lines) log lines so far")

    check(result.completed == requestsPerRound, "round \(number): \(requestsPerRound - result.completed) requests lost")
    check(
        result.idempotentFailureCount == 0,
        "round \(number): \(result.idempotentFailureCount) idempotent requests failed, e.g. \(result.idempotentFailures)")
    let repeated = tally.unkeyedOrderDeliveries.filter { $0.value > 1 }
    check(repeated.isEmpty, "round \(number): POSTs without an Idempotency-Key reached the server twice: \(repeated.prefix(5))")
    let keyedPosts = result.outcomes[.keyedPost]?.values.reduce(0, +) ?? 0
    check(
        tally.keyedOrdersCreated.count == keyedPosts,
        "round \(number): \(tally.keyedOrdersCreated.count) keyed orders created for \(keyedPosts) keyed POSTs")
    check(
        refreshes == tally.refusedGenerations.count,
        "round \(number): \(refreshes) refreshes for \(tally.refusedGenerations.count) refused token generations")
}
check(
    totalExpiries - totalRefreshes == 0 || totalExpiries - totalRefreshes == 1,
    "\(totalRefreshes) refreshes for \(totalExpiries) token expiries")
check(stack.logger.leakedTokens == 0, "\(stack.logger.leakedTokens) log lines carried an access token")
let growthKB = vitals[rounds - 1].residentKilobytes - vitals[0].residentKilobytes
let threadGrowth = vitals[rounds - 1].threads - vitals[0].threads
let openFileGrowth = vitals[rounds - 1].openFiles - vitals[0].openFiles
print(
    "vitals: before \(before); after round 1 \(vitals[0]); after round \(rounds) \(vitals[rounds - 1]) "
        + String(
            format: "(from round 1: RSS %+.1f MB, threads %+d, open files %+d)", Double(growthKB) / 1024, threadGrowth,
            openFileGrowth))
check(growthKB <= rssGrowthLimitKB, "resident memory grew \(growthKB) KB from round 1 to round \(rounds)")
check(threadGrowth <= threadGrowthLimit, "thread count grew by \(threadGrowth) from round 1 to round \(rounds)")
check(openFileGrowth <= openFileGrowthLimit, "open files grew by \(openFileGrowth) from round 1 to round \(rounds)")

if failures.isEmpty {
    print(
        "soak passed: \(totalRefreshes) refreshes for \(totalExpiries) expiries, no request lost, "
            + "every idempotent request succeeded, no unkeyed POST repeated, no token logged")
} else {
    print("soak FAILED:")
    failures.forEach { print("  - \($0)") }
    exit(1)
}
