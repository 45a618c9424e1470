import Foundation

extension HTTPNetworkService {
    /// Downloads the endpoint's body to `fileURL`, chunk by chunk, never holding it whole.
    ///
    /// The body is written to a temporary file beside `fileURL` and renamed onto it only when
    /// the whole body arrived: `fileURL` never holds a partial download, and the temporary file
    /// is removed on any failure. An existing file at `fileURL` is replaced. To continue an
    /// interrupted download instead of starting over, use
    /// ``download(_:via:to:resumable:)``.
    ///
    /// - Returns: The response's head (status, headers such as `Content-Type`, URL).
    /// - Throws: ``NetworkError/cannotWriteFile(path:reason:)`` when the file cannot be written,
    ///   and what ``stream(_:via:_:)`` throws.
    @discardableResult
    public func download(
        _ endpoint: some EndpointProtocol, via environment: some APIEnvironmentProtocol,
        to fileURL: URL
    ) async throws -> HTTPResponseHead {
        try await download(endpoint, via: environment, to: fileURL, resumable: false)
    }

    /// Downloads the endpoint's body to `fileURL`, continuing from the bytes an interrupted
    /// earlier call left when `resumable` is `true` (as `curl -C -` does, but safely).
    ///
    /// With `resumable` `false` this is ``download(_:via:to:)``. With `true`:
    /// - The body goes to `<fileURL>.part`, and what lets it be continued (the response's strong
    ///   `ETag`, or a `Last-Modified` at least a second older than its `Date`) to
    ///   `<fileURL>.part.json`. A failure (a dropped connection, a timeout, cancellation) leaves
    ///   both; `fileURL` still never holds a partial download, and the `.part` is renamed onto
    ///   it when complete.
    /// - The next call for the same URL and `fileURL` sends `Range: bytes=N-` (N the bytes held)
    ///   with `If-Range: <validator>` (RFC 9110 §13.1.5). A `206` whose `Content-Range` starts at
    ///   N is appended; a `200` (the file changed, or the server ignores ranges) restarts the
    ///   file from its first byte; a `416` saying the representation is N bytes long means the
    ///   partial file was already complete, and its head is returned; another `416` starts over.
    /// - A response without such a validator is downloaded whole and cannot be resumed: its
    ///   partial file is removed on failure, because nothing could prove a later range belongs
    ///   to the same version.
    /// - The request always asks for `Accept-Encoding: identity`, replacing the endpoint's own:
    ///   ranges count the bytes as sent, so a decoded body could not be continued.
    /// - A `206` is accepted whatever the endpoint's `acceptedStatusCodes` say: it is the
    ///   answer to the range this method asked for.
    /// - The partial file and its sidecar are trusted only when each is a regular file of this
    ///   process's user with no other link; a symbolic link is never followed. Anything else is
    ///   removed and the download starts from its first byte.
    /// - One download to a given `fileURL` runs at a time: the partial file is locked
    ///   (`flock`) while it is written, and a second call fails at once.
    ///
    /// - Returns: The head of the response that completed the file: a `200`, a `206`, or the
    ///   `416` that confirmed the partial file was already whole.
    /// - Throws: ``NetworkError/invalidPartialContent(path:reason:)`` when a `206` does not
    ///   continue the partial file (a `Content-Range` that is malformed, starts elsewhere or
    ///   does not say where the file ends, or a validator of another version): the partial file
    ///   is removed, so the next call starts over.
    ///   ``NetworkError/cannotWriteFile(path:reason:)`` when another download to `fileURL` is
    ///   in progress. Otherwise as ``download(_:via:to:)``.
    @discardableResult
    public func download(
        _ endpoint: some EndpointProtocol, via environment: some APIEnvironmentProtocol,
        to fileURL: URL, resumable: Bool
    ) async throws -> HTTPResponseHead {
        let request = try await makeRequest(for: endpoint, via: environment)
        guard resumable else { return try await downloadWhole(request, for: endpoint, to: fileURL) }
        var identity = request
        identity.headers["Accept-Encoding"] = "identity"
        let partial = PartialDownload(target: fileURL)
        let file = try await partial.open()
        do {
            return try await resume(identity, for: endpoint, into: file, of: partial)
        } catch {
            // An empty partial file (the request failed before any byte) continues nothing.
            if (try? await file.size()) == 0 { await partial.discard() }
            throw error
        }
    }

    /// The rounds of a resumable download into the locked partial `file`: a second round only
    /// after a response that did not continue it (a 416 for another length), without a range.
    private func resume(
        _ identity: HTTPRequest, for endpoint: some EndpointProtocol, into file: FileChunkWriter,
        of partial: PartialDownload
    ) async throws -> HTTPResponseHead {
        while true {
            let point = await partial.resumePoint(for: identity.url, in: file)
            if point == nil {
                try await file.empty()
                try await partial.remember(nil, for: identity.url)
            }
            var attempt = identity
            if let point {
                attempt.headers["Range"] = "bytes=\(point.offset)-"
                attempt.headers["If-Range"] = point.validator
            }
            let outcome = try await stream(attempt, for: endpoint, alsoAccepting: point == nil ? [] : [206, 416]) {
                head, body in
                try await Self.write(body, of: head, resuming: point, url: identity.url, to: partial, through: file)
            }
            if let head = outcome { return head }
        }
    }

    /// Writes one response of a resumable download into the locked partial `file`, as
    /// ``ResumePolicy`` decides; `nil` when the download must start over without a range.
    private static func write(
        _ body: HTTPBody, of head: HTTPResponseHead, resuming point: (offset: Int64, validator: String)?,
        url: URL, to partial: PartialDownload, through file: FileChunkWriter
    ) async throws -> HTTPResponseHead? {
        let path = partial.target.path
        let decision = ResumePolicy.decision(
            status: head.statusCode, headers: head.headers, offset: point?.offset ?? 0, resumed: point != nil,
            validator: point?.validator, now: Date())
        switch decision {
        case .writeWhole(let validator):
            do {
                // Empty first, then record: a failure or a crash in between leaves the old bytes
                // under the old validator, or no bytes under the new one, never old bytes under
                // the new validator (which a later range of the new version would extend).
                try await file.empty()
                try await partial.remember(validator, for: url)
                for try await chunk in body { try await file.write(chunk) }
                try await file.finish()
            } catch {
                // Without a validator nothing could continue these bytes later.
                if validator == nil { await partial.discard() }
                throw error
            }
        case .append(let completeLength):
            for try await chunk in body { try await file.write(chunk) }
            try await file.finish()
            let size = try await file.size()
            guard size == completeLength else {
                await partial.discard()
                throw NetworkError.invalidPartialContent(
                    path: path, reason: "the resumed file holds \(size) bytes, not the \(completeLength) its Content-Range announced")
            }
        case .alreadyComplete:
            break
        case .startOver:
            try await file.empty()
            try await partial.remember(nil, for: url)
            return nil
        case .reject(let reason):
            await partial.discard()
            throw NetworkError.invalidPartialContent(path: path, reason: reason)
        }
        try await partial.complete()
        return head
    }

    /// The download that is never resumed: a fresh temporary file, removed on any failure.
    private func downloadWhole(
        _ request: HTTPRequest, for endpoint: some EndpointProtocol, to fileURL: URL
    ) async throws -> HTTPResponseHead {
        let directory = fileURL.deletingLastPathComponent().path
        let temporary = "\(directory)/.\(fileURL.lastPathComponent).\(UUID().uuidString).download"
        do {
            let head = try await stream(request, for: endpoint, alsoAccepting: []) { head, body in
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
