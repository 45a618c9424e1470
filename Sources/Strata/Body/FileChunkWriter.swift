#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// A file written chunk by chunk on a Dispatch thread, never on one of Swift's cooperative
/// threads (architecture decision 4): where a download goes (`HTTPNetworkService.download`,
/// `strata-demo get -o`).
package final class FileChunkWriter: Sendable {
    private let descriptor: Int32
    /// The path errors name: where the file is going, not its temporary name.
    private let path: String

    /// Creates `temporaryPath`, which must not exist, readable and writable by the owner only
    /// until it is renamed into place at `path`.
    package init(creating temporaryPath: String, for path: String) throws(NetworkError) {
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotWriteFile(path: path, reason: String(cString: strerror(errno))) }
        self.descriptor = descriptor
        self.path = path
    }

    /// Opens the partial file `partPath` of a resumable download, created readable and writable
    /// by the owner only if missing: emptied first when `truncating`, appended to otherwise.
    ///
    /// - Parameter expectedOffset: When appending, the bytes the file must already hold: one
    ///   that changed since it was measured (another download to the same path) is refused,
    ///   rather than written at the wrong place.
    package init(
        openingPart partPath: String, for path: String, truncating: Bool, expectedOffset: Int64 = 0
    ) throws(NetworkError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncating ? O_TRUNC : O_APPEND)
        let descriptor = open(partPath, flags, 0o600)
        guard descriptor >= 0 else { throw .cannotWriteFile(path: path, reason: String(cString: strerror(errno))) }
        if !truncating {
            let end = lseek(descriptor, 0, SEEK_END)
            guard end == off_t(expectedOffset) else {
                close(descriptor)
                throw .cannotWriteFile(
                    path: path,
                    reason: "its partial file \(partPath) holds \(end) bytes, not the \(expectedOffset) the resume asked "
                        + "for (is another download writing it?)")
            }
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Appends `chunk`.
    package func write(_ chunk: ArraySlice<UInt8>) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.writeNow(chunk) })
            }
        }
    }

    /// Flushes the file to disk and gives it the permissions of a new file (0666 less the umask,
    /// read from /proc: setting the umask to read it would change it for the whole process).
    package func finish() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        guard fchmod(self.descriptor, 0o666 & ~Self.processUmask) == 0, fsync(self.descriptor) == 0 else {
                            throw NetworkError.cannotWriteFile(path: self.path, reason: String(cString: strerror(errno)))
                        }
                    })
            }
        }
    }

    /// The process's umask, from the `Umask:` line of /proc/self/status; 022 where it cannot be read.
    private static var processUmask: mode_t {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = line.split(separator: "\t").last.flatMap({ mode_t($0.trimmingCharacters(in: .whitespaces), radix: 8) })
        else { return 0o022 }
        return value
    }

    private func writeNow(_ chunk: ArraySlice<UInt8>) throws {
        try chunk.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    throw NetworkError.cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
                }
            }
        }
    }
}
