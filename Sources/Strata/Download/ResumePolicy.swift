import Foundation

/// The pure decisions behind a resumable download (RFC 9110 §13.1.5 `If-Range`, §14 ranges,
/// §15.3.7 `206`, §15.5.17 `416`): which validator makes a partial file resumable, and what a
/// response to a resumed request means for the bytes on disk. No I/O: the download only moves
/// bytes by what it returns.
enum ResumePolicy {
    /// What to do with a response to a download request.
    enum Decision: Equatable, Sendable {
        /// Write the body as the whole file (a `2xx` other than `206`): the partial file, if
        /// any, is dropped. `validator` makes a later resume possible; `nil` when the response
        /// has none fit for `If-Range`.
        case writeWhole(validator: String?)
        /// Append the body to the partial file, which then holds `completeLength` bytes.
        case append(completeLength: Int64)
        /// The partial file already holds the whole representation (a `416` whose
        /// `bytes */length` equals it): nothing to read, the file is done.
        case alreadyComplete
        /// The range fits nothing (a `416` for another length): drop the partial file and ask
        /// for the whole representation.
        case startOver
        /// The response does not continue the partial file as asked; `reason` says how.
        case reject(reason: String)
    }

    /// The `If-Range` value that keeps a resume from mixing two versions of a file, taken from
    /// the response that started it; `nil` when there is none, and the download cannot resume.
    ///
    /// §13.1.5: a strong entity tag; a weak one is never sent, and then neither is a date. A
    /// `Last-Modified` only without an `ETag`, and only when it is a strong validator (§8.8.2.2):
    /// at least one second before the response's `Date`.
    static func validator(of headers: HTTPHeaders, now: Date) -> String? {
        if let field = headers["ETag"] {
            guard let tag = EntityTag(field), !tag.isWeak else { return nil }
            return field.trimmingASCIIWhitespace()
        }
        guard let modified = headers["Last-Modified"], let lastModified = HTTPDate.parse(modified, now: now),
            let dated = headers["Date"], let date = HTTPDate.parse(dated, now: now),
            date.timeIntervalSince(lastModified) >= 1
        else { return nil }
        return modified.trimmingASCIIWhitespace()
    }

    /// What the response with `status` and `headers` means for a partial file of `offset`
    /// bytes, requested with `Range: bytes=offset-` and `If-Range: validator` when `resumed`.
    static func decision(
        status: Int, headers: HTTPHeaders, offset: Int64, resumed: Bool, validator: String?, now: Date
    ) -> Decision {
        switch status {
        case 206:
            return partialContent(headers, offset: offset, resumed: resumed, validator: validator, now: now)
        case 416 where resumed:
            // §15.5.17: the range starts at or past the end; `bytes */length` says where the end is.
            guard let field = headers["Content-Range"], let contentRange = ContentRange(field),
                contentRange.range == nil, contentRange.completeLength == offset
            else { return .startOver }
            // The length alone does not say the bytes are of the version held: a 416 naming
            // another strong tag is of another version of the same size.
            if let sent = validator.flatMap(Self.entityTag), !sent.isWeak, let field = headers["ETag"],
                let tag = EntityTag(field), tag.isWeak || tag.opaque != sent.opaque
            {
                return .startOver
            }
            return .alreadyComplete
        case 200...299:
            return .writeWhole(validator: Self.validator(of: headers, now: now))
        default:
            // Another status the endpoint accepts (a 404 it expects): its body is the file, and
            // no later range could be of it.
            return .writeWhole(validator: nil)
        }
    }

    private static func partialContent(
        _ headers: HTTPHeaders, offset: Int64, resumed: Bool, validator: String?, now: Date
    ) -> Decision {
        guard resumed else { return .reject(reason: "the server answered 206 to a request for the whole file") }
        guard let field = headers["Content-Range"] else {
            return .reject(reason: "the 206 has no Content-Range (a multipart/byteranges answer to a single range?)")
        }
        guard let contentRange = ContentRange(field), let range = contentRange.range else {
            return .reject(reason: "the 206's Content-Range \"\(field)\" is not a valid byte range")
        }
        guard range.lowerBound == offset else {
            return .reject(
                reason: "the 206 starts at byte \(range.lowerBound) (Content-Range \"\(field)\"), "
                    + "but the partial file holds \(offset) bytes")
        }
        if let length = headers["Content-Length"].flatMap({ Int64($0.trimmingASCIIWhitespace()) }),
            length != range.upperBound - range.lowerBound + 1
        {
            return .reject(reason: "the 206's Content-Length \(length) does not match its Content-Range \"\(field)\"")
        }
        // If-Range made the server compare; a 206 naming another strong tag is another version.
        if let sent = validator.flatMap(Self.entityTag), let field = headers["ETag"], let tag = EntityTag(field),
            !tag.isWeak, !sent.isWeak, tag.opaque != sent.opaque
        {
            return .reject(reason: "the 206 is of another version (ETag \(field), resumed from \(sent.opaque))")
        }
        // The same for a date: a server that honours Range but ignores If-Range would otherwise
        // append a range of a newer version.
        if let sent = validator, Self.entityTag(sent) == nil, let sentDate = HTTPDate.parse(sent, now: now),
            let field = headers["Last-Modified"], let modified = HTTPDate.parse(field, now: now), modified != sentDate
        {
            return .reject(reason: "the 206 is of another version (Last-Modified \(field), resumed from \(sent))")
        }
        // `*`: nothing could tell that the range reaches the end, and a short one would be
        // renamed into place as if whole.
        guard let complete = contentRange.completeLength else {
            return .reject(reason: "the 206's Content-Range \"\(field)\" does not say how long the file is")
        }
        // A range ending before the complete length would leave a hole the next resume fills.
        guard range.upperBound + 1 == complete else {
            return .reject(reason: "the 206 ends at byte \(range.upperBound) of \(complete) (Content-Range \"\(field)\")")
        }
        return .append(completeLength: complete)
    }

    /// The entity tag an `If-Range` value holds; `nil` for a date. §13.1.5: `If-Range` is an
    /// entity-tag, which starts with a quote (a weak one with `W/`), or an HTTP-date.
    private static func entityTag(_ validator: String) -> EntityTag? {
        let text = validator.trimmingASCIIWhitespace()
        guard text.hasPrefix("\"") || text.hasPrefix("W/\"") else { return nil }
        return EntityTag(text)
    }
}
