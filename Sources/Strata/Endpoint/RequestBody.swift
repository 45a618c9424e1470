import Foundation

/// The body of an endpoint's request.
public enum RequestBody: Sendable {
    /// A value encoded with the service's `JSONEncoder`, sent as `Content-Type: application/json`.
    case json(any Encodable & Sendable)
    /// Raw bytes with the given content type.
    case data(Data, contentType: String)
    /// Form fields sent as `application/x-www-form-urlencoded`, encoded like query items.
    case form([URLQueryItem])
}
