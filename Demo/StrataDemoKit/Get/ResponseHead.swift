#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A response's status line and header fields as `-i` and `-v` show them. The protocol version
/// is not shown: a response through `URLSessionTransport` may have come over HTTP/2. Names and
/// values come from the server, so their control characters are escaped (``TerminalText``).
struct ResponseHead {
    /// `200 OK`.
    let status: String
    /// `HTTP 200 OK`, then one `Name: value` line per field.
    let lines: [String]

    init(_ head: HTTPResponseHead) {
        status = "\(head.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: head.statusCode))"
        lines = ["HTTP \(status)"] + head.headers.map { TerminalText.escaping("\($0.name): \($0.value)") }
    }
}
