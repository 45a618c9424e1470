/// Structured metadata attached to a log message, such as `["status": "200"]`.
public typealias LogMetadata = [String: String]
