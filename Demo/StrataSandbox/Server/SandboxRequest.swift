import Foundation

/// A request as a ``SandboxServer`` received it.
package struct SandboxRequest: Sendable {
    /// The method token, such as `GET`.
    package var method: String
    /// The request target: path and query, such as `/v1/todos?done=1`.
    package var target: String
    /// The header fields in the order received.
    package var headers: [(name: String, value: String)]
    /// The body, de-chunked.
    package var body: Data

    /// The path, without the query.
    package var path: String { String(target.prefix { $0 != "?" }) }

    /// The first value of the header `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
