import Foundation
import Strata

/// A response a canned transport answers with: status, headers and body.
public struct CannedResponse: Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates a response with a UTF-8 text body.
    public init(string: String, statusCode: Int = 200, headers: HTTPHeaders = [:]) {
        self.init(data: Data(string.utf8), statusCode: statusCode, headers: headers)
    }

    /// Creates a response with a raw body.
    public init(data: Data, statusCode: Int = 200, headers: HTTPHeaders = [:]) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = data
    }

    /// A response with no body, such as a `204` or a `503`.
    public static func status(_ statusCode: Int, headers: HTTPHeaders = [:]) -> CannedResponse {
        CannedResponse(data: Data(), statusCode: statusCode, headers: headers)
    }

    /// A JSON response encoding `value`, with `Content-Type: application/json`.
    ///
    /// - Throws: The encoder's error when `value` cannot be encoded.
    public static func json(
        _ value: some Encodable, statusCode: Int = 200, headers: HTTPHeaders = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> CannedResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return CannedResponse(data: try encoder.encode(value), statusCode: statusCode, headers: headers)
    }

    /// The response as an ``/Strata/HTTPResponse`` answering `url`.
    public func httpResponse(for url: URL?) -> HTTPResponse {
        HTTPResponse(statusCode: statusCode, headers: headers, body: body, url: url)
    }
}
