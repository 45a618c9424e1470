#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// The files a resumable download keeps beside its target until it completes: the bytes so far
/// in `<target>.part`, and in `<target>.part.json` the validator that lets them be continued
/// (`If-Range`) and a digest of the URL they came from.
///
/// The validator lives in a small sidecar file, rather than an extended attribute (not every
/// file system keeps them, and copies drop them) or the caller's hands (who would have to keep
/// it across a crash): the two files move and vanish together. Every file operation runs on a
/// Dispatch thread, never on one of Swift's cooperative threads.
struct PartialDownload: Sendable {
    /// What the sidecar records.
    struct Record: Codable, Equatable, Sendable {
        /// The SHA-256 of the request URL, hex: a partial file is resumed only from the URL that
        /// started it, and the URL (which may carry a key in its query) is not written to disk.
        var resource: String
        /// The `If-Range` value: a strong `ETag`, or a strong `Last-Modified`.
        var validator: String
    }

    /// Where the finished file goes.
    let target: URL

    /// The bytes so far.
    var partPath: String { target.path + ".part" }
    /// The sidecar.
    var recordPath: String { target.path + ".part.json" }

    /// The most bytes read from a sidecar: a digest and one validator fit many times over.
    static let maxRecordBytes = 4096

    /// Opens and locks the partial file (see ``FileChunkWriter/init(lockingPart:for:)``) on a
    /// Dispatch thread; the lock is held until the writer is released.
    func open() async throws(NetworkError) -> FileChunkWriter {
        let (partPath, path) = (partPath, target.path)
        return try await BlockingCall.run { () -> Result<FileChunkWriter, NetworkError> in
            Result { () throws(NetworkError) in try FileChunkWriter(lockingPart: partPath, for: path) }
        }.get()
    }

    /// Where a resume of `url` into `file` (the opened partial file) starts: its size and its
    /// validator, or `nil` when there is nothing to continue (an empty file, no sidecar, one
    /// from another URL, or one this process's user did not write alone). Leftovers that
    /// cannot be continued are left for the caller to empty.
    func resumePoint(for url: URL, in file: FileChunkWriter) async -> (offset: Int64, validator: String)? {
        guard let size = try? await file.size(), size > 0 else { return nil }
        let recordPath = recordPath
        let resource = Self.resource(of: url)
        return await BlockingCall.run { () -> (offset: Int64, validator: String)? in
            // The name is predictable: never follow a link, and trust only a file of our own.
            let descriptor = Glibc.open(recordPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, FileChunkWriter.isPrivateFile(status),
                status.st_size <= Self.maxRecordBytes
            else { return nil }
            var bytes = [UInt8](repeating: 0, count: Self.maxRecordBytes)
            let count = read(descriptor, &bytes, Self.maxRecordBytes)
            guard count > 0, let record = try? JSONDecoder().decode(Record.self, from: Data(bytes.prefix(count))),
                record.resource == resource
            else { return nil }
            return (size, record.validator)
        }
    }

    /// Records `validator` for the bytes of `url` about to be written, or removes the record
    /// when there is no validator (the partial file then cannot be resumed). Written before the
    /// first byte of the body, and atomically, so the partial file never has a wrong record.
    func remember(_ validator: String?, for url: URL) async throws(NetworkError) {
        let (recordPath, path) = (recordPath, target.path)
        let record = validator.map { Record(resource: Self.resource(of: url), validator: $0) }
        let failure = await BlockingCall.run { () -> NetworkError? in
            guard let record else {
                unlink(recordPath)
                return nil
            }
            do {
                try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: recordPath), options: .atomic)
                return nil
            } catch {
                return .cannotWriteFile(path: path, reason: "its resume record \(recordPath) could not be written: \(error)")
            }
        }
        if let failure { throw failure }
    }

    /// Moves the partial file onto the target and removes the record.
    func complete() async throws(NetworkError) {
        let (partPath, recordPath, path) = (partPath, recordPath, target.path)
        let failure = await BlockingCall.run { () -> NetworkError? in
            guard rename(partPath, path) == 0 else {
                return .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
            }
            unlink(recordPath)
            return nil
        }
        if let failure { throw failure }
    }

    /// Removes the partial file's name and its record, if any; neither is followed if a link.
    func discard() async {
        let (partPath, recordPath) = (partPath, recordPath)
        await BlockingCall.run {
            unlink(recordPath)
            unlink(partPath)
        }
    }

    private static func resource(of url: URL) -> String {
        SHA256.hexDigest(Array(url.absoluteString.utf8))
    }

}
