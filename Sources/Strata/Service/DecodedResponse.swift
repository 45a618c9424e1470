/// A decoded model together with the response it came from, as
/// ``HTTPNetworkService/response(to:via:decoding:)`` returns it.
public struct DecodedResponse<Model> {
    /// The decoded body.
    public var model: Model
    /// The response the model was decoded from, after every layer.
    public var response: HTTPResponse

    /// Creates a decoded response.
    package init(model: Model, response: HTTPResponse) {
        self.model = model
        self.response = response
    }

    /// The response's HTTP status code.
    public var statusCode: Int { response.statusCode }
    /// The response's header fields.
    public var headers: HTTPHeaders { response.headers }
    /// Where the body came from: ``HTTPResponse/Source/revalidated`` when an ETag store answered.
    public var source: HTTPResponse.Source { response.source }
}

extension DecodedResponse: Sendable where Model: Sendable {}
extension DecodedResponse: Equatable where Model: Equatable {}
extension DecodedResponse: Hashable where Model: Hashable {}
