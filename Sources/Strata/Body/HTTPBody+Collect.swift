import Foundation

extension HTTPBody {
    /// Reads the whole body into memory, refusing to hold more than `maxBytes`.
    ///
    /// - Parameter maxBytes: The most bytes to accept; a body whose declared ``length`` is larger
    ///   fails before anything is read.
    /// - Returns: The body's bytes.
    /// - Throws: ``HTTPBodyError/tooLarge(limit:)`` past the limit, ``HTTPBodyError/alreadyIterated``
    ///   for a single-pass body already read, or what reading the body throws.
    public func collect(upTo maxBytes: Int) async throws -> Data {
        if let length, length > Int64(maxBytes) { throw HTTPBodyError.tooLarge(limit: maxBytes) }
        if let bytes = bytesInMemory { return Data(bytes) }
        var collected = Data()
        if let length { collected.reserveCapacity(Int(length)) }
        for try await chunk in self {
            guard chunk.count <= maxBytes - collected.count else { throw HTTPBodyError.tooLarge(limit: maxBytes) }
            collected.append(contentsOf: chunk)
        }
        return collected
    }
}
