#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// A file a body is read from: checked and measured when the body is created, opened anew for
/// every iteration, so the body is replayable.
struct FileBodySource: Sendable {
    let path: String
    let length: Int64

    init(_ file: URL) throws {
        guard file.isFileURL else {
            throw HTTPBodyError.unreadableFile(path: file.path, reason: "not a file: URL")
        }
        path = file.path
        let reader = try FileChunkReader(path: path)
        length = try reader.regularFileSize()
    }

    func openReader() throws -> FileChunkReader { try FileChunkReader(path: path) }
}

/// An open file read with `pread` at explicit offsets, on a Dispatch thread: a body never blocks
/// one of Swift's cooperative threads on the disk (architecture decision 4).
final class FileChunkReader: Sendable {
    /// How much one read asks for: large enough that the hop to a Dispatch thread is a small
    /// part of the cost, small enough that a body in flight holds little memory.
    static let chunkSize = 128 * 1024

    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw HTTPBodyError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// The file's size, or a typed error when it is not a regular file.
    func regularFileSize() throws -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw HTTPBodyError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw HTTPBodyError.unreadableFile(path: path, reason: "not a regular file")
        }
        return Int64(status.st_size)
    }

    /// Up to `count` bytes from `offset`, or `nil` at the end of the file.
    func read(at offset: Int64, upTo count: Int) async throws -> ArraySlice<UInt8>? {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.readNow(at: offset, upTo: count) })
            }
        }
    }

    private func readNow(at offset: Int64, upTo count: Int) throws -> ArraySlice<UInt8>? {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            if read > 0 { return buffer[0..<read] }
            if read == 0 { return nil }
            guard errno == EINTR else {
                throw HTTPBodyError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }
}
