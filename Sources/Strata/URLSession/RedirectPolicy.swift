#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The rules for following a redirect, as a pure function of the request that was redirected,
/// the redirect's status and its target.
///
/// FoundationNetworking on Linux forwards `Authorization` and custom headers to any host and
/// drops the body of a 307/308, so ``URLSessionTransport`` builds every follow-up request itself
/// (and so does `PinningTransport`, so both follow redirects alike):
/// - 307 and 308 keep the method and the body (RFC 9110 §15.4.8, §15.4.9);
/// - 303 turns anything but `HEAD` into a bodiless `GET` (§15.4.4);
/// - 301 and 302 turn `POST` into a bodiless `GET`, as every browser and URLSession do (§15.4.2);
/// - a target on another origin (scheme, host or port) loses every header a ``Redaction``
///   calls secret (`Authorization`, `Cookie`, `Proxy-Authorization`, `X-API-Key`,
///   `X-Auth-Token` and the caller's extra names), so credentials meant for one server never
///   reach another;
/// - an `https` request is not followed to `http` unless ``RedirectSafety/allowsHTTPSToHTTP``.
///
/// A transport that follows redirects itself uses it like this:
/// ```swift
/// if let location = RedirectPolicy.target(of: response, for: request) {
///     try RedirectPolicy.check(location, from: request, safety: safety)
///     if let next = RedirectPolicy.followUp(to: request, status: response.statusCode, location: location,
///                                           secrets: safety.secrets) {
///         // send `next`, counting redirects against a limit
///     }
/// }
/// ```
package enum RedirectPolicy {
    /// Whether a transport above follows redirects itself, so that one below must return them.
    ///
    /// `PinningTransport` sets it around `inner`: every hop must come back to it to be matched
    /// against its pins, or an unpinned host could redirect a request to a pinned one through an
    /// `inner` that follows redirects (a `URLSessionTransport()` with its default limits).
    @TaskLocal package static var isFollowedAbove = false

    /// Refuses a redirect that would downgrade an `https` request to `http`, unless allowed.
    ///
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/invalidRequest`` saying why and
    ///   naming ``RedirectSafety/allowsHTTPSToHTTP``.
    package static func check(_ location: URL, from request: HTTPRequest, safety: RedirectSafety) throws(TransportError) {
        guard !safety.allowsHTTPSToHTTP, request.url.scheme?.lowercased() == "https",
            location.scheme?.lowercased() == "http"
        else { return }
        let redaction = safety.secrets
        throw TransportError(
            .invalidRequest, method: request.method, url: request.url,
            message:
                "refusing to follow the redirect from \(redaction.redact(request.url)) to \(redaction.redact(location)): "
                + "it would send the request, its headers and body unencrypted, readable and changeable by anyone on "
                + "the network; if that server really is only reachable over http, allow it with "
                + "RedirectSafety(allowsHTTPSToHTTP: true)")
    }

    /// The request to send next, or `nil` when the redirect cannot be followed: the target is
    /// not an `http`/`https` URL, or the method and body must be kept (307, 308) and the body is
    /// a single-pass stream the first request already read. The redirect is then the response.
    ///
    /// - Parameter secrets: The headers dropped when `location` is another origin: every name
    ///   this redaction treats as secret.
    package static func followUp(
        to previous: HTTPRequest, status: Int, location: URL,
        secrets: Redaction = Redaction()
    ) -> HTTPRequest? {
        guard let scheme = location.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var next = previous
        next.url = location
        let method = previous.method
        let becomesGet = (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding"] { next.headers.remove(name: name) }
        } else if !previous.isReplayable {
            return nil // The body went with the first request and cannot be sent again.
        }
        if !isSameOrigin(previous.url, location) {
            for field in previous.headers where secrets.isSecretHeader(field.name) { next.headers.remove(name: field.name) }
        }
        return next
    }

    /// The absolute target of a followable redirect: a 301, 302, 303, 307 or 308 with a
    /// non-empty `Location`, resolved against the response's URL (or the request's). `nil` for
    /// any other response, which is then final.
    package static func target(of response: HTTPResponse, for request: HTTPRequest) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.headers["Location"], !location.isEmpty
        else { return nil }
        return URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL
    }

    /// Whether `response` came from the origin `request` was sent to: no redirect, or only
    /// same-origin ones (a response without a URL is taken to be the request's).
    package static func answersOrigin(of request: HTTPRequest, _ response: HTTPResponse) -> Bool {
        answersOrigin(of: request, response.url)
    }

    /// Whether a response from `answered` came from the origin `request` was sent to (`nil`: the
    /// request's own).
    package static func answersOrigin(of request: HTTPRequest, _ answered: URL?) -> Bool {
        guard let answered else { return true }
        return isSameOrigin(request.url, answered)
    }

    /// Whether two URLs share scheme, host and port (RFC 6454), default ports made explicit.
    package static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
