#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The secret key a ``FileETagStore`` directory's entries are authenticated with: 32 random
/// bytes in a file only the owner can read (0600), shared by every store instance on the
/// directory, in this process or another.
///
/// A key file that is not a private 32-byte regular file of this user (a link, readable by
/// others, another size) is not trusted: it is replaced by a new key, which turns every
/// existing entry into a miss.
enum StoreKeyFile {
    static let fileName = ".strata-etag-key"
    static let byteCount = 32

    /// The directory's key, created on first use.
    ///
    /// - Throws: ``EntryDirectory/Failure`` when no key can be read or written.
    static func loadOrCreate(in directory: String) throws(EntryDirectory.Failure) -> [UInt8] {
        let path = "\(directory)/\(fileName)"
        for _ in 0..<3 {
            if let key = try readPrivateKey(at: path) { return key }
            try create(at: path, in: directory)
        }
        throw EntryDirectory.Failure(operation: "create key", path: path, reason: "the key file keeps changing")
    }

    /// The key, or nil when there is none or it was untrustworthy (and has been removed).
    private static func readPrivateKey(at path: String) throws(EntryDirectory.Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { return discard(path) }
            throw failure("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 == 0,
            Int(info.st_size) == byteCount
        else { return discard(path) }
        var key = [UInt8](repeating: 0, count: byteCount)
        let count = key.withUnsafeMutableBytes { read(fd, $0.baseAddress, byteCount) }
        guard count == byteCount else { return discard(path) }
        return key
    }

    private static func discard(_ path: String) -> [UInt8]? {
        unlink(path)
        return nil
    }

    /// Writes a fresh key to a temporary file and links it into place; if another writer got
    /// there first, theirs stands (the link fails with EEXIST) and is read next.
    private static func create(at path: String, in directory: String) throws(EntryDirectory.Failure) {
        let temporary = "\(directory)/.\(fileName).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create", temporary) }
        defer { unlink(temporary) }
        var generator = SystemRandomNumberGenerator()
        let key = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, byteCount) }
        let synced = written == byteCount && fsync(fd) == 0
        close(fd)
        guard synced else { throw failure("write", temporary) }
        guard link(temporary, path) == 0 || errno == EEXIST else { throw failure("link", path) }
    }

    private static func failure(_ operation: String, _ path: String) -> EntryDirectory.Failure {
        EntryDirectory.Failure(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
