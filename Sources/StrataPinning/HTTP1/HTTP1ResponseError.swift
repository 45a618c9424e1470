/// A response the HTTP/1.1 client refused: the server's bytes were not valid HTTP/1.1, broke a
/// configured ``HTTPLimits`` limit, or stopped before the response was complete.
///
/// Each case names one problem and carries what a person needs to recognise it (an excerpt of
/// the offending bytes with control characters escaped, the limit, the byte counts). The
/// connection that produced it is never reused.
enum HTTP1ResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status line is not `HTTP/1.x NNN [reason]` (RFC 9112 §4).
    case invalidStatusLine(excerpt: String)
    /// The status line's status code breaks ``HTTPStatusCodeRule`` (not three digits, or
    /// outside 100–599), the rule HTTP/2's `:status` follows too.
    case invalidStatusCode(HTTPStatusCodeRule.Violation)
    /// The server answered with an HTTP version other than 1.x.
    case unsupportedVersion(excerpt: String)
    /// A header or trailer line is not `name: value`, the name is not a token, or the value
    /// contains a control character (RFC 9112 §5, RFC 9110 §5.5).
    case invalidHeaderField(excerpt: String)
    /// A header line started with whitespace: obsolete line folding, which RFC 9112 §5.2
    /// deprecates and this client rejects rather than guess at.
    case obsoleteLineFolding(excerpt: String)
    /// The response head (or trailer section) exceeded ``HTTPLimits/maxHeaderBlockBytes``.
    case headerBlockTooLarge(limit: Int)
    /// The response head (or trailer section) had more fields than ``HTTPLimits/maxHeaderCount``.
    case tooManyHeaders(limit: Int)
    /// More interim `1xx` responses arrived than ``HTTPLimits/maxInterimResponses``.
    case tooManyInterimResponses(limit: Int)
    /// The server answered `101 Switching Protocols`, which this client never asks for.
    case unexpectedSwitchingProtocols
    /// A `Content-Length` value is not a non-negative decimal number.
    case invalidContentLength(excerpt: String)
    /// `Content-Length` appeared with different values (RFC 9112 §6.3 rule 5: unrecoverable).
    case conflictingContentLength(first: Int, second: Int)
    /// `Transfer-Encoding` is something other than exactly `chunked`; this client decodes no
    /// other transfer coding.
    case unsupportedTransferEncoding(excerpt: String)
    /// A chunk-size line is not `1*HEXDIG [chunk-ext]` (RFC 9112 §7.1) or the size overflows.
    case invalidChunkSize(excerpt: String)
    /// A chunk-size line exceeded ``HTTPLimits/maxChunkSizeLineBytes``.
    case chunkSizeLineTooLong(limit: Int)
    /// Chunk data was not followed by CRLF.
    case invalidChunkTerminator
    /// The body exceeded ``HTTPLimits/maxResponseBodyBytes`` (or `Content-Length` announced more).
    case bodyTooLarge(limit: Int)
    /// The connection closed before any byte of a response arrived. On a reused connection
    /// this is how a server that closed an idle connection shows up.
    case closedBeforeResponse
    /// The connection closed in the middle of the response head.
    case truncatedHead(receivedBytes: Int)
    /// The connection closed before all `Content-Length` body bytes arrived.
    case truncatedBody(expectedBytes: Int, receivedBytes: Int)
    /// The connection closed before the chunked body's last chunk and trailer section ended.
    case truncatedChunkedBody(receivedBytes: Int)

    /// Whether the failure is the connection ending early rather than bytes that broke the
    /// protocol or a limit.
    var isTruncation: Bool {
        switch self {
        case .closedBeforeResponse, .truncatedHead, .truncatedBody, .truncatedChunkedBody: true
        default: false
        }
    }

    /// What was wrong with the response, for the person reading the log.
    var description: String {
        switch self {
        case .invalidStatusLine(let excerpt):
            "The response's status line \(excerpt) is not \"HTTP/1.1 <3-digit status> [reason]\"."
        case .invalidStatusCode(let violation):
            "The response's status line is invalid: \(violation)."
        case .unsupportedVersion(let excerpt):
            "The server answered with \(excerpt); only HTTP/1.0 and HTTP/1.1 are supported here."
        case .invalidHeaderField(let excerpt):
            "The response header line \(excerpt) is not a valid \"name: value\" field."
        case .obsoleteLineFolding(let excerpt):
            "The response header line \(excerpt) starts with whitespace (obsolete line folding, RFC 9112 §5.2); refused."
        case .headerBlockTooLarge(let limit):
            "The response header section is larger than \(limit) bytes (HTTPLimits.maxHeaderBlockBytes)."
        case .tooManyHeaders(let limit):
            "The response has more than \(limit) header fields (HTTPLimits.maxHeaderCount)."
        case .tooManyInterimResponses(let limit):
            "The server sent more than \(limit) interim 1xx responses (HTTPLimits.maxInterimResponses)."
        case .unexpectedSwitchingProtocols:
            "The server answered 101 Switching Protocols, but no protocol upgrade was requested."
        case .invalidContentLength(let excerpt):
            "The response's Content-Length \(excerpt) is not a non-negative decimal number."
        case .conflictingContentLength(let first, let second):
            "The response carries conflicting Content-Length values \(first) and \(second) (RFC 9112 §6.3)."
        case .unsupportedTransferEncoding(let excerpt):
            "The response's Transfer-Encoding \(excerpt) is not supported; only \"chunked\" is."
        case .invalidChunkSize(let excerpt):
            "The chunk-size line \(excerpt) of a chunked body is not a hexadecimal size (RFC 9112 §7.1)."
        case .chunkSizeLineTooLong(let limit):
            "A chunk-size line is longer than \(limit) bytes (HTTPLimits.maxChunkSizeLineBytes)."
        case .invalidChunkTerminator:
            "Chunk data in a chunked body was not followed by CRLF (RFC 9112 §7.1)."
        case .bodyTooLarge(let limit):
            "The response body is larger than \(limit) bytes (HTTPLimits.maxResponseBodyBytes)."
        case .closedBeforeResponse:
            "The server closed the connection before sending any response byte."
        case .truncatedHead(let received):
            "The server closed the connection after \(received) bytes of the response head."
        case .truncatedBody(let expected, let received):
            "The server closed the connection after \(received) of \(expected) body bytes (Content-Length)."
        case .truncatedChunkedBody(let received):
            "The server closed the connection after \(received) bytes of a chunked body, before its last chunk."
        }
    }
}
