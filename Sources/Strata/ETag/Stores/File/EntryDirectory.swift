#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Blocking POSIX file operations on a ``FileETagStore`` directory. Every call blocks its
/// thread; the store runs them on its own serial queue, never on Swift's cooperative pool.
struct EntryDirectory: Sendable {
    /// A file read back, with the identity of the inode it came from.
    struct ReadFile {
        var contents: Data
        var device: UInt64
        var inode: UInt64
    }

    /// A file listed by ``listing()``.
    struct ListedFile {
        var name: String
        var size: Int
        var modified: Double
    }

    /// A failed system call, with errno's text.
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var reason: String
        /// The file itself is unusable (not a regular file, too large), as opposed to a call
        /// that failed and may succeed later.
        var isUnusableFile = false
        var description: String { "\(operation) \(path): \(reason)" }
    }

    /// The resolved path: no symbolic link in its last component.
    let path: String

    /// Creates the directory and any missing parents with mode 0700 (minus the umask), or takes
    /// an existing one after checking that nobody else can write to it (see ``SafeDirectory``).
    ///
    /// - Throws: ``Failure`` when the path cannot be created or is not a directory, or
    ///   ``SafeDirectory/Refusal`` when someone else could plant files in it.
    static func create(at url: URL) throws -> EntryDirectory {
        let requested = url.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(
                atPath: requested, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(operation: "create directory", path: requested, reason: error.localizedDescription)
        }
        return EntryDirectory(path: try SafeDirectory.check(requested))
    }

    /// Writes `data` to `name` atomically: a temporary file in the same directory, created
    /// 0600, written, `fsync`ed, then renamed over `name`. A reader (in this process or another)
    /// sees the old file or the new one, never a torn one; a crash leaves at most a temporary
    /// file, which ``listing()`` reports as stale.
    ///
    /// - Throws: ``Failure`` naming the call that failed; the temporary file is removed.
    func writeAtomically(_ data: Data, to name: String) throws(Failure) {
        let temporary = "\(path)/.\(name).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("create", temporary) }
        var failed: Failure?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return failed = Self.failure("write", temporary) }
                offset += written
            }
        }
        // fsync before rename: otherwise a crash can leave the new name pointing at empty blocks.
        if failed == nil, fsync(fd) != 0 { failed = Self.failure("fsync", temporary) }
        if close(fd) != 0, failed == nil { failed = Self.failure("close", temporary) }
        if failed == nil, rename(temporary, "\(path)/\(name)") != 0 { failed = Self.failure("rename", temporary) }
        if let failed {
            unlink(temporary)
            throw failed
        }
    }

    /// Reads `name` if it is a regular file of at most `maxBytes`, and marks it used by setting
    /// its modification time to now (the store's least-recently-used order survives restarts).
    ///
    /// - Returns: The contents, or `nil` when there is no such file.
    /// - Throws: ``Failure`` when it cannot be read; with `isUnusableFile` when it is not a
    ///   regular file or is larger than `maxBytes` (it is then never read whole).
    func read(_ name: String, maxBytes: Int) throws(Failure) -> ReadFile? {
        let file = "\(path)/\(name)"
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Self.failure("open", file)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.failure("stat", file) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(operation: "read", path: file, reason: "not a regular file", isUnusableFile: true)
        }
        let size = Int(info.st_size)
        guard size <= maxBytes else {
            throw Failure(
                operation: "read", path: file, reason: "\(size) bytes exceeds the \(maxBytes)-byte entry limit",
                isUnusableFile: true)
        }
        var contents = Data(count: size)
        var offset = 0
        var failed: Failure?
        contents.withUnsafeMutableBytes { raw in
            while offset < size, let base = raw.baseAddress {
                let count = readBytes(fd, base + offset, size - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    if count < 0 { failed = Self.failure("read", file) }
                    return
                }
                offset += count
            }
        }
        if let failed { throw failed }
        // A file that shrank while being read is returned short and fails its length check.
        contents.count = offset
        futimens(fd, nil)
        return ReadFile(contents: contents, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Removes `name`, but only while it is still the inode that was read, so a fresh entry
    /// another process renamed into place meanwhile survives.
    func remove(_ name: String, ifStill file: ReadFile) {
        var info = stat()
        let target = "\(path)/\(name)"
        guard lstat(target, &info) == 0, UInt64(info.st_dev) == file.device, UInt64(info.st_ino) == file.inode else {
            return
        }
        unlink(target)
    }

    /// Whether a regular file named `name` exists.
    func exists(_ name: String) -> Bool {
        var info = stat()
        return lstat("\(path)/\(name)", &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Removes `name`; a missing file is not an error.
    ///
    /// - Throws: ``Failure`` for any other failure.
    func remove(_ name: String) throws(Failure) {
        guard unlink("\(path)/\(name)") == 0 || errno == ENOENT else { throw Self.failure("remove", "\(path)/\(name)") }
    }

    /// The regular files in the directory with their sizes and modification times.
    ///
    /// - Throws: ``Failure`` when the directory cannot be listed.
    func listing() throws(Failure) -> [ListedFile] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw Failure(operation: "list", path: path, reason: error.localizedDescription)
        }
        return names.compactMap { name in
            var info = stat()
            guard lstat("\(path)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            return ListedFile(name: name, size: Int(info.st_size), modified: modified)
        }
    }

    private static func failure(_ operation: String, _ path: String) -> Failure {
        Failure(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}

/// `read(2)`, named apart from ``EntryDirectory/read(_:maxBytes:)``.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
