/// Bytes received from a server and not yet parsed, with room to read more in place.
///
/// The storage is allocated once and reused for every response on a connection: reads go
/// straight into its free tail (no scratch buffer, no per-read allocation), consumed bytes are
/// dropped by moving an index, and the unread remainder is moved to the front only when the tail
/// runs out of room. It grows only when one unparsed unit (a header line, say) is larger than
/// the storage, which the parser's limits bound.
struct HTTP1ReceiveBuffer: Sendable {
    /// The least free space offered to one read.
    static let minimumReadSize = 16 * 1024

    private var storage: [UInt8]
    /// Index of the first unread byte.
    private var start = 0
    /// Index one past the last unread byte.
    private var end = 0

    /// Creates an empty buffer with `capacity` bytes of storage.
    init(capacity: Int = 32 * 1024) {
        storage = [UInt8](repeating: 0, count: max(capacity, Self.minimumReadSize))
    }

    /// The number of unread bytes.
    var count: Int { end - start }

    /// Whether every received byte has been consumed.
    var isEmpty: Bool { start == end }

    /// Drops the first `byteCount` unread bytes.
    mutating func consume(_ byteCount: Int) {
        start += byteCount
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Appends a copy of `bytes`.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        reserveTail(bytes.count)
        storage.withUnsafeMutableBytes { raw in
            UnsafeMutableRawBufferPointer(rebasing: raw[end..<end + bytes.count]).copyMemory(from: bytes)
        }
        end += bytes.count
    }

    /// Lets `read` fill the free tail in place and keeps what it reports having written.
    ///
    /// - Parameter read: Writes up to the buffer's size and returns how many bytes it wrote
    ///   (0 for end of stream).
    /// - Returns: What `read` returned.
    /// - Throws: Whatever `read` throws; the buffer is then unchanged.
    mutating func receive<E: Error>(_ read: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) -> Int {
        reserveTail(Self.minimumReadSize)
        let tailStart = end
        let outcome: Result<Int, E> = storage.withUnsafeMutableBytes { raw in
            do throws(E) {
                return .success(try read(UnsafeMutableRawBufferPointer(rebasing: raw[tailStart...])))
            } catch {
                return .failure(error)
            }
        }
        let written = try outcome.get()
        // A stream reporting more than it was offered would corrupt the indices; clamp.
        end += min(max(written, 0), storage.count - tailStart)
        return written
    }

    /// Calls `body` with the unread bytes, indexed from 0.
    func withUnreadBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let outcome: Result<R, E> = storage.withUnsafeBytes { raw in
            do throws(E) {
                return .success(try body(UnsafeRawBufferPointer(rebasing: raw[start..<end])))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The offset (from the first unread byte) of the first `byte` at or after `offset`.
    func firstIndex(of byte: UInt8, from offset: Int) -> Int? {
        guard offset < count else { return nil }
        return storage.withUnsafeBytes { raw -> Int? in
            var index = start + offset
            while index < end {
                if raw[index] == byte { return index - start }
                index += 1
            }
            return nil
        }
    }

    /// The unread byte at `offset`.
    subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// Makes at least `byteCount` bytes free after the unread ones, moving the unread bytes to
    /// the front first and growing only when that is not enough.
    private mutating func reserveTail(_ byteCount: Int) {
        guard storage.count - end < byteCount else { return }
        if start > 0 {
            let unread = count
            storage.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                (base).copyMemory(from: base + start, byteCount: unread)
            }
            start = 0
            end = unread
        }
        let missing = byteCount - (storage.count - end)
        if missing > 0 {
            storage.append(contentsOf: repeatElement(0, count: max(missing, storage.count)))
        }
    }
}
