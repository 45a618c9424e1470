/// A response type for endpoints whose body the caller does not need, such as a `204 No Content`.
///
/// ``HTTPNetworkService/request(to:via:)`` returns it without decoding, whatever the body holds:
/// ```swift
/// let _: EmptyResponse = try await service.request(to: Todos.delete(id: 7), via: environment)
/// ```
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}

    /// Decodes nothing; any body is accepted.
    public init(from decoder: any Decoder) throws {}
}
