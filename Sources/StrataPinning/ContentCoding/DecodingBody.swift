import Foundation
import Strata

/// A coded response body, decoded as the consumer reads it: each chunk read from the connection
/// is decoded in pieces of at most 64 KiB, each counted by an ``ExpansionGuard`` before it is
/// handed out, so neither the coded nor the decoded body is ever whole in memory.
///
/// Failures are `TransportError`s of kind `invalidResponse` (corrupt bytes, a body cut before
/// the coding's end marker, bytes after it, a limit passed); what reading the connection throws
/// passes through unchanged.
struct DecodingBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let coded: HTTPBody
    let guardrail: ExpansionGuard
    /// The request, for the errors.
    let method: HTTPMethod
    let url: URL

    func makeAsyncIterator() -> Iterator {
        Iterator(coded: coded.makeAsyncIterator(), guardrail: guardrail, method: method, url: url)
    }

    /// Decodes one chunk at a time.
    struct Iterator: AsyncIteratorProtocol {
        var coded: HTTPBody.Iterator
        var guardrail: ExpansionGuard
        let method: HTTPMethod
        let url: URL
        private var decoder: (any ContentDecoder)?
        private var finished = false

        init(coded: HTTPBody.Iterator, guardrail: ExpansionGuard, method: HTTPMethod, url: URL) {
            self.coded = coded
            self.guardrail = guardrail
            self.method = method
            self.url = url
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !finished else { return nil }
            do {
                let decoder = try decoder ?? guardrail.coding.makeDecoder()
                self.decoder = decoder
                while true {
                    if let piece = try decoder.nextOutput() {
                        try guardrail.count(piece.count, codedBytes: decoder.consumedBytes)
                        return piece
                    }
                    guard let chunk = try await coded.next() else {
                        finished = true
                        try decoder.finish()
                        return nil
                    }
                    decoder.feed(chunk)
                }
            } catch let error as ContentDecodingError {
                finished = true
                throw TransportError(.invalidResponse, method: method, url: url, message: error.description, underlying: error)
            } catch let error as ExpansionGuard.Exceeded {
                finished = true
                throw TransportError(.invalidResponse, method: method, url: url, message: error.description, underlying: error)
            }
        }
    }
}
