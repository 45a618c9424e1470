import Foundation

/// A failure reported by ``HTTPNetworkService``: the request could not be built, no response
/// arrived, the status was not 2xx, or the body could not be decoded.
public enum NetworkError: Error, CustomStringConvertible {
    /// The final response, after every transport layer, had a status the endpoint does not
    /// accept (``EndpointProtocol/acceptedStatusCodes``, 2xx by default).
    case httpStatus(HTTPResponse)
    /// A 2xx body could not be decoded as the requested type. Carries the body for diagnosis.
    case decoding(any Error, body: Data)
    /// The endpoint and environment do not form a valid request URL.
    case invalidURL(String)
    /// A header from the environment or endpoint is not allowed on the wire.
    case invalidHeader(HTTPHeaderError)
    /// The endpoint's body could not be encoded.
    case encoding(any Error)
    /// The endpoint requires authentication and the auth service has no access token, so the
    /// request was not sent.
    case missingAccessToken
    /// The transport failed to obtain a response, or reading its body failed; `TransportError`
    /// or a layer's own error.
    case transport(any Error)
    /// A download could not be written to `path`; nothing was left there.
    case cannotWriteFile(path: String, reason: String)
    /// A resumed download's `206` did not continue the partial file of the download to `path`
    /// (its `Content-Range` is malformed, starts elsewhere, or ends short); `reason` says how.
    /// The partial file was removed, so the next download starts over.
    case invalidPartialContent(path: String, reason: String)

    /// What happened and what to do next. URLs and error texts are redacted (``Redaction``).
    public var description: String {
        Redaction().scrub(unredactedDescription)
    }

    private var unredactedDescription: String {
        switch self {
        case .httpStatus(let response):
            return "The server answered \(response.statusCode) for \(response.url.map { Redaction().redact($0) } ?? "the request")"
                + (response.retrySummary.map { " \($0)" } ?? "") + "."
        case .decoding(let error, let body):
            return "The response body (\(body.count) bytes) could not be decoded: \(error). "
                + "Check that the model matches the server's JSON."
        case .invalidURL(let reason):
            return "Invalid request URL: \(reason)"
        case .invalidHeader(let error):
            return error.description
        case .encoding(let error):
            return "The request body could not be encoded: \(error)."
        case .missingAccessToken:
            return "The endpoint requires authentication but the auth service has no access token; "
                + "sign in (AuthServiceProtocol.setAccessToken) before calling it. The request was not sent."
        case .transport(let error):
            return "No response: \(error)"
        case .cannotWriteFile(let path, let reason):
            return "The download could not be written to \(path): \(reason). "
                + "Check that the directory exists, is writable and has room; nothing was left at that path."
        case .invalidPartialContent(let path, let reason):
            return "The resumed download to \(path) was not continued: \(reason). "
                + "Its partial file was removed, so downloading again starts from the first byte; "
                + "if this repeats, the server (or a proxy) mishandles Range requests."
        }
    }
}

extension NetworkError: LocalizedError {
    /// The redacted ``description``, so `localizedDescription` says what happened and what to
    /// do instead of "The operation could not be completed", and is as safe to log.
    public var errorDescription: String? { description }
}
