/// The response field (or the client's own limit) that closed a rate-limit window: what a
/// ``RateLimitedError`` and a ``RateLimitEvent`` name, so the person reading them knows which
/// header to look at.
public enum RateLimitSource: String, Sendable, Hashable, CustomStringConvertible {
    /// `Retry-After` on a 429 or 503 (RFC 9110 §10.2.3, RFC 6585 §4).
    case retryAfter = "Retry-After"
    /// `RateLimit` of the IETF httpapi draft: the current form, a list of policies
    /// (`"default";r=0;t=30`, with `RateLimit-Policy`), or the earlier dictionary form
    /// (`limit=100, remaining=0, reset=30`).
    case rateLimit = "RateLimit"
    /// The earlier drafts' separate `RateLimit-Remaining` and `RateLimit-Reset` fields.
    case rateLimitReset = "RateLimit-Reset"
    /// The common, unstandardized `X-RateLimit-Remaining` and `X-RateLimit-Reset` (GitHub,
    /// Twitter, many gateways).
    case xRateLimitReset = "X-RateLimit-Reset"
    /// The client's own token bucket, ``RateLimitPolicy/clientLimit``: no server asked.
    case clientLimit = "client limit"

    /// The field's name, such as `Retry-After`, or `client limit`.
    public var description: String { rawValue }
}
