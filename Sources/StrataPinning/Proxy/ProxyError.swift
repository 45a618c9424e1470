import Foundation

/// Why a proxy did not open a tunnel to a pinned host. ``PinningTransport`` throws it as the
/// `underlying` error of a `TransportError` whose message is this description: kind
/// `cannotConnect` when the proxy could not reach the host (5xx: may pass, so retry layers may
/// retry), `other` when the proxy refuses by policy or credentials (a configuration to fix),
/// `invalidResponse` or `connectionLost` for a broken answer.
///
/// `proxy` is always the proxy's URL with credentials redacted (``ProxyConfiguration/redactedURL``).
public enum ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The proxy answered `407 Proxy Authentication Required` (or `401`, as tinyproxy does for
    /// wrong credentials): it wants credentials, or did not accept the ones sent. `challenges`
    /// are the schemes it offered (`Basic`, `Negotiate`, ...).
    case authenticationRequired(proxy: String, target: String, statusCode: Int, sentCredentials: Bool, challenges: [String])
    /// The proxy answered `CONNECT` with another status outside 2xx.
    case tunnelRefused(proxy: String, target: String, statusCode: Int, reason: String)
    /// The proxy closed the connection before a complete response head.
    case closedBeforeResponse(proxy: String, target: String)
    /// The proxy's answer is not an HTTP/1.x response head, or bytes followed a `2xx` head
    /// before the pinned host could have sent any.
    case malformedResponse(proxy: String, reason: String)
    /// The proxy's response head is longer than the limit (``HTTPLimits/maxHeaderBlockBytes``)
    /// or has more header fields than ``HTTPLimits/maxHeaderCount``.
    case responseHeadTooLarge(proxy: String, limit: Int)

    /// The status the proxy answered with, when it answered one.
    public var statusCode: Int? {
        switch self {
        case let .authenticationRequired(_, _, status, _, _): status
        case let .tunnelRefused(_, _, status, _): status
        case .closedBeforeResponse, .malformedResponse, .responseHeadTooLarge: nil
        }
    }

    /// What happened, naming the proxy (without credentials), and what to do about it.
    public var description: String {
        switch self {
        case let .authenticationRequired(proxy, target, status, sentCredentials, challenges):
            var text = "The proxy \(proxy) refused to open a tunnel to \(target) (\(status)); "
            text +=
                sentCredentials
                ? "it did not accept the user name and password of the proxy URL"
                : "it needs credentials: put them in the proxy URL, as http://user:password@host:port"
            if !challenges.isEmpty, !challenges.contains(where: { $0.lowercased() == "basic" }) {
                text += " (it asks for \(challenges.joined(separator: ", ")); only Basic is supported)"
            }
            return text + "."
        case let .tunnelRefused(proxy, target, status, reason):
            let answer = "\(status)\(reason.isEmpty ? "" : " \(reason)")"
            switch status {
            case 403:
                return "The proxy \(proxy) refused to open a tunnel to \(target) (\(answer)): its policy does not "
                    + "allow it; ask for the host and port to be allowed, or list the host in NO_PROXY if it is reachable directly."
            case 500...599:
                return "The proxy \(proxy) could not reach \(target) (\(answer)); check that the host and port are "
                    + "right and reachable from the proxy."
            default:
                return "The proxy \(proxy) refused to open a tunnel to \(target) (\(answer))."
            }
        case let .closedBeforeResponse(proxy, target):
            return "The proxy \(proxy) closed the connection before answering the CONNECT to \(target)."
        case let .malformedResponse(proxy, reason):
            return "The proxy \(proxy) sent a malformed answer to CONNECT: \(reason)."
        case let .responseHeadTooLarge(proxy, limit):
            return "The proxy \(proxy) sent a CONNECT response head over the limit of \(limit) "
                + "(PinningTransport.Configuration.limits)."
        }
    }
}

extension ProxyError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
