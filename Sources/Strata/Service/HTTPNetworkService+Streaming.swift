import Foundation

extension HTTPNetworkService {
    /// The most bytes of a rejected streamed response's body kept for
    /// ``NetworkError/httpStatus(_:)``: error bodies are small, and the error shows them.
    package static let maxRejectedBodyBytes = 64 * 1024

    /// Sends the endpoint's request and hands an accepted response to `consume` as it arrives:
    /// the head at once, the body as the server sends it, never held whole.
    ///
    /// ```swift
    /// let lines = try await service.stream(LogAPI.tail, via: production) { head, body in
    ///     var count = 0
    ///     for try await chunk in body { count += chunk.count(of: UInt8(ascii: "\n")) }
    ///     return count
    /// }
    /// ```
    /// The endpoint's ``EndpointProtocol/timeout`` bounds the whole exchange, body included.
    ///
    /// - Returns: What `consume` returned.
    /// - Throws: ``NetworkError/httpStatus(_:)`` for a status the endpoint does not accept (with
    ///   up to 64 KiB of its body), another ``NetworkError`` when the request
    ///   cannot be built or sent or its body cannot be read, what `consume` throws, or
    ///   `CancellationError`.
    public func stream<Result: Sendable>(
        _ endpoint: some EndpointProtocol, via environment: some APIEnvironmentProtocol,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await stream(makeRequest(for: endpoint, via: environment), for: endpoint, alsoAccepting: [], consume)
    }

    /// ``stream(_:via:_:)`` for a request already made for `endpoint`, handing `consume` the
    /// statuses in `extra` too (a `416` to a resumed download).
    func stream<Result: Sendable>(
        _ request: HTTPRequest, for endpoint: some EndpointProtocol, alsoAccepting extra: Set<Int>,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let accepted = endpoint.acceptedStatusCodes
        func exchange() async throws -> Result {
            try await transport.stream(request) { head, body in
                guard accepted.contains(head.statusCode) || extra.contains(head.statusCode) else {
                    let shown = (try? await body.collect(upTo: Self.maxRejectedBodyBytes)) ?? Data()
                    throw NetworkError.httpStatus(
                        HTTPResponse(
                            statusCode: head.statusCode, headers: head.headers,
                            body: shown, url: head.url))
                }
                do {
                    return try await consume(head, body)
                } catch let error as TransportError {
                    throw NetworkError.transport(error) // Reading the body failed.
                } catch let error as HTTPBodyError {
                    throw NetworkError.transport(error)
                } catch {
                    throw ConsumerFailure(error: error)
                }
            }
        }
        let cachePolicy = endpoint.cachePolicy
        do {
            guard let timeout = endpoint.timeout else { return try await cachePolicy.applyUnlessStandard(exchange) }
            return try await RequestDeadline.withTimeout(timeout) { try await cachePolicy.applyUnlessStandard(exchange) }
        } catch let failure as ConsumerFailure {
            throw failure.error // The caller's own error, as it threw it.
        } catch {
            throw Self.networkError(error)
        }
    }
}

/// An error `consume` threw, carried past the service's error mapping untouched.
private struct ConsumerFailure: Error {
    let error: any Error
}
