#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// What a ``SandboxServer`` route answers.
package struct SandboxResponse: Sendable {
    /// The status code.
    package var status: Int
    /// Header fields; `Content-Length` and `Connection` are added when the response is written.
    package var headers: [(name: String, value: String)]
    /// The body (not sent for `HEAD`, `204` and `304`).
    package var body: Data
    /// How long to wait before answering, such as a slow export; the wait ends when the server stops.
    package var delay: Duration

    /// Creates a response.
    package init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data(),
        delay: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A response with a JSON body and `Content-Type: application/json`.
    package static func json(
        _ text: String, status: Int = 200,
        headers: [(name: String, value: String)] = []
    ) -> SandboxResponse {
        SandboxResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }

    /// The bytes on the wire: status line, fields, blank line, body (RFC 9112 §4, §6).
    ///
    /// - Parameters:
    ///   - keepAlive: Whether the connection stays open; `false` adds `Connection: close`.
    ///   - headOnly: The request was `HEAD`: the fields describe the body, which is not sent.
    func serialized(keepAlive: Bool, headOnly: Bool) -> Data {
        // RFC 9110 §6.4.1: 1xx, 204 and 304 never carry content, whatever the fields say.
        let bodyless = status == 204 || status == 304 || (100..<200).contains(status)
        var fields = headers.filter { $0.name.lowercased() != "content-length" && $0.name.lowercased() != "connection" }
        if !bodyless { fields.append(("Content-Length", String(body.count))) }
        if !keepAlive { fields.append(("Connection", "close")) }
        var head = "HTTP/1.1 \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))\r\n"
        for field in fields { head += "\(field.name): \(field.value)\r\n" }
        var bytes = Data((head + "\r\n").utf8)
        if !bodyless && !headOnly { bytes.append(body) }
        return bytes
    }
}
