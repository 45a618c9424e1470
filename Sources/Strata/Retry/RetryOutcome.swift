/// What one attempt produced, as ``RetryPolicy`` sees it: a response of any status, or an error.
package enum RetryOutcome: Sendable {
    /// The inner transport returned a response (any status, including 4xx and 5xx).
    case response(HTTPResponse)
    /// The inner transport threw.
    case failure(any Error)
}

extension RetryOutcome {
    /// The response, or the error thrown.
    package func get() throws -> HTTPResponse {
        switch self {
        case .response(let response): response
        case .failure(let error): throw error
        }
    }
}
