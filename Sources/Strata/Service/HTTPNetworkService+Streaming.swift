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
        let request = try await makeRequest(for: endpoint, via: environment)
        let accepted = endpoint.acceptedStatusCodes
        func exchange() async throws -> Result {
            try await transport.stream(request) { head, body in
                guard accepted.contains(head.statusCode) else {
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

    /// Downloads the endpoint's body to `fileURL`, chunk by chunk, never holding it whole.
    ///
    /// The body is written to a temporary file beside `fileURL` and renamed onto it only when
    /// the whole body arrived: `fileURL` never holds a partial download, and the temporary file
    /// is removed on any failure. An existing file at `fileURL` is replaced.
    ///
    /// - Returns: The response's head (status, headers such as `Content-Type`, URL).
    /// - Throws: ``NetworkError/cannotWriteFile(path:reason:)`` when the file cannot be written,
    ///   and what ``stream(_:via:_:)`` throws.
    @discardableResult
    public func download(
        _ endpoint: some EndpointProtocol, via environment: some APIEnvironmentProtocol,
        to fileURL: URL
    ) async throws -> HTTPResponseHead {
        let directory = fileURL.deletingLastPathComponent().path
        let temporary = "\(directory)/.\(fileURL.lastPathComponent).\(UUID().uuidString).download"
        do {
            let head = try await stream(endpoint, via: environment) { head, body in
                let file = try FileChunkWriter(creating: temporary, for: fileURL.path)
                for try await chunk in body { try await file.write(chunk) }
                try await file.finish()
                return head
            }
            guard rename(temporary, fileURL.path) == 0 else {
                throw NetworkError.cannotWriteFile(path: fileURL.path, reason: String(cString: strerror(errno)))
            }
            return head
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// An error `consume` threw, carried past the service's error mapping untouched.
private struct ConsumerFailure: Error {
    let error: any Error
}
