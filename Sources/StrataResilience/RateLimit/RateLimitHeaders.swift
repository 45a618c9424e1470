import Foundation
import Strata

/// The rate-limit fields of a response head, read into "hold this group for so long" or
/// nothing: a pure parser over the header text, tested and fuzzed without a clock or a network.
///
/// The first family of fields that is present and well formed decides, in this order:
/// 1. `Retry-After` on a 429 or 503 (RFC 9110 §10.2.3, RFC 6585 §4), a delay in seconds or an
///    HTTP-date, read by `RetryAfter`: the server's answer about this very response. On another
///    status it means nothing for the rate limit and is ignored.
/// 2. `RateLimit` of the IETF httpapi draft (draft-ietf-httpapi-ratelimit-headers), on any
///    status (a 200 that used the last request of the window holds too):
///    - the current form, a Structured Field List of policies, `"default";r=0;t=30`, where `r`
///      is the requests remaining and `t` the seconds until the window resets. Each policy
///      with `r=0` is exhausted; the hold lasts until the latest reset among the exhausted ones.
///      An exhausted policy without `t` falls back to its window `w` in `RateLimit-Policy`
///      (`"default";q=100;w=60`): the window's length is the longest a reset can be away.
///    - the earlier drafts' Dictionary form, `limit=100, remaining=0, reset=30`.
/// 3. The earlier drafts' separate `RateLimit-Remaining` and `RateLimit-Reset` (seconds).
/// 4. The common `X-RateLimit-Remaining` and `X-RateLimit-Reset`. There is no standard for the
///    reset: some servers send seconds from now, others (GitHub, Twitter) a Unix time. A value
///    above ``epochThreshold`` (10⁹ s, September 2001 as a Unix time, 31 years as a delay) is
///    read as a Unix time in seconds, anything else as seconds from now.
///
/// A family that is present and well formed but says the window is open (requests remain, a
/// reset in the past) decides too: nothing is held, whatever a later family says. Malformed
/// values (signs where none belong, fractions, garbage, values longer than the limits) make a
/// family count as absent; they never throw or trap.
package enum RateLimitHeaders {
    /// The statuses whose `Retry-After` closes the window, as in `RetryPolicy`.
    package static let retryAfterStatusCodes: Set<Int> = [429, 503]
    /// The longest plain number read (`RateLimit-Reset`, `X-RateLimit-*`), in bytes, as for
    /// `Retry-After` (`RetryAfter.maxLength`).
    package static let maxNumberLength = 64
    /// Resets above this many seconds are Unix times, not delays (see the type's documentation).
    package static let epochThreshold: Double = 1_000_000_000
    /// The longest hold read from any field: 366 days keeps every value a finite `Duration`.
    /// ``RateLimitPolicy/maxHold`` caps what is applied far lower.
    package static let longestHold: Duration = .seconds(86_400 * 366)

    /// How long `headers` (of a response with `statusCode`) ask to hold the next requests.
    ///
    /// - Parameters:
    ///   - statusCode: The response's status.
    ///   - headers: The response's header fields.
    ///   - now: The current wall-clock time, for HTTP-dates and Unix times; read only when one
    ///     is present.
    /// - Returns: The hold and the field that asked for it, or `nil` when nothing is to be held.
    package static func hold(statusCode: Int, headers: HTTPHeaders, now: @autoclosure () -> Date) -> RateLimitHold? {
        if let seconds = retryAfter(statusCode: statusCode, headers: headers, now: now) {
            return RateLimitHold(seconds: seconds, source: .retryAfter)
        }
        if let seconds = rateLimit(headers) { return RateLimitHold(seconds: seconds, source: .rateLimit) }
        if let seconds = separateFields(headers) { return RateLimitHold(seconds: seconds, source: .rateLimitReset) }
        if let seconds = xRateLimit(headers, now: now) { return RateLimitHold(seconds: seconds, source: .xRateLimitReset) }
        return nil
    }

    // Each reading returns nil when its fields are absent or malformed, 0 when they say the
    // window is open, and the seconds to hold otherwise.

    private static func retryAfter(statusCode: Int, headers: HTTPHeaders, now: () -> Date) -> Double? {
        guard retryAfterStatusCodes.contains(statusCode), let value = headers["Retry-After"] else { return nil }
        return RetryAfter.seconds(from: value, now: now())
    }

    /// `RateLimit`, in whichever of its two forms it comes.
    private static func rateLimit(_ headers: HTTPHeaders) -> Double? {
        guard let field = combined(headers, "RateLimit"), let members = StructuredFieldMember.parse(field) else { return nil }
        if members.contains(where: { $0.key == "remaining" }) { return dictionaryForm(members) }
        return listForm(members, policies: combined(headers, "RateLimit-Policy").flatMap(StructuredFieldMember.parse))
    }

    /// `"a";r=0;t=30, "b";r=5;t=2`: the latest reset among the exhausted policies.
    private static func listForm(_ members: [StructuredFieldMember], policies: [StructuredFieldMember]?) -> Double? {
        var windows: [String: Int64] = [:]
        for policy in policies ?? [] {
            guard policy.key == nil, let name = policyName(policy), let window = policy.integer("w"), window >= 0 else { continue }
            windows[name] = windows[name] ?? window
        }
        var understood = false
        var latestReset: Int64 = 0
        for member in members {
            // A policy without a valid remaining count says nothing; the others still count.
            guard member.key == nil, let name = policyName(member), let remaining = member.integer("r"), remaining >= 0 else {
                continue
            }
            let reset = member.parameters["t"] == nil ? windows[name] : member.integer("t").flatMap { $0 >= 0 ? $0 : nil }
            // An exhausted policy whose reset is unknown (or negative) cannot say how long.
            guard remaining > 0 || reset != nil else { continue }
            understood = true
            if remaining == 0, let reset { latestReset = max(latestReset, reset) }
        }
        return understood ? Double(latestReset) : nil
    }

    /// `limit=100, remaining=0, reset=30`.
    private static func dictionaryForm(_ members: [StructuredFieldMember]) -> Double? {
        func value(_ key: String) -> Int64? {
            guard case .integer(let value) = members.last(where: { $0.key == key })?.item, value >= 0 else { return nil }
            return value
        }
        guard let remaining = value("remaining") else { return nil }
        guard remaining == 0 else { return 0 }
        return value("reset").map(Double.init)
    }

    /// `RateLimit-Remaining: 0` and `RateLimit-Reset: 30`.
    private static func separateFields(_ headers: HTTPHeaders) -> Double? {
        guard let remaining = headers["RateLimit-Remaining"].flatMap(integer) else { return nil }
        guard remaining == 0 else { return 0 }
        return headers["RateLimit-Reset"].flatMap(integer).map(Double.init)
    }

    /// `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset: 30` or `X-RateLimit-Reset: 1750000000`.
    private static func xRateLimit(_ headers: HTTPHeaders, now: () -> Date) -> Double? {
        guard let remaining = headers["X-RateLimit-Remaining"].flatMap(integer) else { return nil }
        guard remaining == 0 else { return 0 }
        guard let reset = headers["X-RateLimit-Reset"].flatMap(seconds) else { return nil }
        guard reset > epochThreshold else { return reset }
        return max(0, reset - now().timeIntervalSince1970)
    }

    /// The policy name of a List item: a String or, leniently, a Token.
    private static func policyName(_ member: StructuredFieldMember) -> String? {
        switch member.item {
        case .string(let name), .token(let name): name
        default: nil
        }
    }

    /// Every line of field `name`, joined as one list (RFC 9110 §5.3), or `nil` when absent.
    private static func combined(_ headers: HTTPHeaders, _ name: String) -> String? {
        let lines = headers.values(for: name)
        return lines.isEmpty ? nil : lines.joined(separator: ", ")
    }

    /// A non-negative integer of at most 18 digits (any count of seconds fits), spaces around it
    /// ignored; `nil` for anything else.
    private static func integer(_ value: String) -> Int64? {
        let trimmed = trimmed(value)
        guard let trimmed, (1...18).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy(isDigit) else { return nil }
        return Int64(trimmed)
    }

    /// Non-negative seconds, whole (`30`, `1750000000`) or with a fraction (`1750000000.250`, as
    /// Discord sends); `nil` for anything else.
    private static func seconds(_ value: String) -> Double? {
        guard let trimmed = trimmed(value) else { return nil }
        let parts = trimmed.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) else { return nil }
        return Double(trimmed)
    }

    /// `value` without surrounding spaces and tabs, or `nil` when it is longer than
    /// ``maxNumberLength`` or nothing is left.
    private static func trimmed(_ value: String) -> String? {
        guard value.utf8.count <= maxNumberLength else { return nil }
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
