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

    /// Opens the partial file `partPath` of a resumable download for appending, created readable
    /// and writable by the owner only if missing, and holds an exclusive lock on it until this
    /// writer is released: a second download to the same file is refused, not interleaved.
    ///
    /// The name is predictable, so what sits there is trusted only when it is a regular file
    /// owned by this process's user with no other link: a symbolic link is removed, never
    /// followed (`O_NOFOLLOW`), and anything else is unlinked and a fresh file is created.
    /// Blocks on `open`: call it off Swift's cooperative threads (``PartialDownload/open()``).
    ///
    /// - Throws: ``NetworkError/cannotWriteFile(path:reason:)`` when the file cannot be opened,
    ///   or when another download to `path` holds the lock (its reason says so).
    package convenience init(lockingPart partPath: String, for path: String) throws(NetworkError) {
        self.init(descriptor: try Self.lockPart(partPath, for: path), path: path)
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// How many times a partial file is opened when what sits at its name is not trusted: a
    /// leftover is replaced once; a name that keeps changing under us is another writer's.
    private static let maxPartOpens = 3

    private static func lockPart(_ partPath: String, for path: String) throws(NetworkError) -> Int32 {
        for _ in 0..<maxPartOpens {
            let descriptor = open(partPath, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let failure = errno
                // ELOOP: a symbolic link at the name. Remove the link itself; its target is untouched.
                guard failure == ELOOP else { throw .cannotWriteFile(path: path, reason: String(cString: strerror(failure))) }
                unlink(partPath)
                continue
            }
            var status = stat()
            guard fstat(descriptor, &status) == 0, isPrivateFile(status) else {
                // Not ours alone (a hard link, another owner, not a regular file): a leftover.
                close(descriptor)
                unlink(partPath)
                continue
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                close(descriptor)
                guard failure == EWOULDBLOCK else {
                    throw .cannotWriteFile(path: path, reason: String(cString: strerror(failure)))
                }
                throw .cannotWriteFile(path: path, reason: "another download to \(path) is in progress (it holds \(partPath))")
            }
            // The download that held the lock before us may have renamed the file into place.
            var named = stat()
            guard lstat(partPath, &named) == 0, named.st_dev == status.st_dev, named.st_ino == status.st_ino else {
                close(descriptor)
                continue
            }
            return descriptor
        }
        throw .cannotWriteFile(path: path, reason: "its partial file \(partPath) kept being replaced while it was opened")
    }

    /// Whether `status` is of a regular file that only this process's user can have put there
    /// and that no other name reaches.
    package static func isPrivateFile(_ status: stat) -> Bool {
        (status.st_mode & S_IFMT) == S_IFREG && status.st_uid == geteuid() && status.st_nlink == 1
    }

    /// The bytes the file holds.
    package func size() async throws -> Int64 {
        try await BlockingCall.run { () throws -> Int64 in
            var status = stat()
            guard fstat(self.descriptor, &status) == 0 else {
                throw NetworkError.cannotWriteFile(path: self.path, reason: String(cString: strerror(errno)))
            }
            return Int64(status.st_size)
        }
    }

    /// Empties the file; later writes start at its first byte.
    package func empty() async throws {
        try await BlockingCall.run { () throws in
            guard ftruncate(self.descriptor, 0) == 0 else {
                throw NetworkError.cannotWriteFile(path: self.path, reason: String(cString: strerror(errno)))
            }
        }
    }

    deinit { close(descriptor) }

    /// Appends `chunk`.
    package func write(_ chunk: ArraySlice<UInt8>) async throws {
        try await BlockingCall.run { try self.writeNow(chunk) }
    }

    /// Flushes the file to disk and gives it the permissions of a new file (0666 less the umask,
    /// read from /proc: setting the umask to read it would change it for the whole process).
    package func finish() async throws {
        try await BlockingCall.run {
            guard fchmod(self.descriptor, 0o666 & ~Self.processUmask) == 0, fsync(self.descriptor) == 0 else {
                throw NetworkError.cannotWriteFile(path: self.path, reason: String(cString: strerror(errno)))
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
