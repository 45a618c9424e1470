#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Checks that a ``FileETagStore`` directory is the process's own: whoever can write to it can
/// plant or swap entry files and the key file, so only its owner may.
///
/// - A symbolic link is resolved once, here, and the store uses the real directory from then
///   on; the real directory is checked like any other.
/// - The directory must belong to the process's effective user.
/// - If group or others can write to it, the write bits are removed (the process owns it). A
///   sticky directory (such as `/tmp`) is shared by design and is refused instead: use a
///   directory of your own inside it.
enum SafeDirectory {
    /// Why a directory is refused, with what to do about it.
    struct Refusal: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var fix: String
        var description: String { "\(reason); \(fix)" }
    }

    /// The real path of the directory at `path`, after the checks.
    ///
    /// - Throws: ``Refusal`` when someone else could write to it, ``EntryDirectory/Failure``
    ///   when it cannot be examined or is not a directory.
    static func check(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else {
            throw EntryDirectory.Failure(operation: "resolve", path: path, reason: String(cString: strerror(errno)))
        }
        let real = String(cString: resolved)
        free(resolved)
        // Opened without following a link: the checks and the chmod apply to this very inode.
        let fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw EntryDirectory.Failure(
                operation: "use directory", path: real,
                reason: errno == ENOTDIR ? "it exists and is not a directory" : String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw EntryDirectory.Failure(operation: "stat", path: real, reason: String(cString: strerror(errno)))
        }
        let shown = real == path ? "'\(path)'" : "'\(path)' (a link to '\(real)')"
        guard info.st_uid == geteuid() else {
            throw Refusal(
                path: real,
                reason: "\(shown) is owned by user \(info.st_uid), not by this process's user "
                    + "\(geteuid()), who could then not trust its entries",
                fix: "use a directory of your own, or `chown \(geteuid()) '\(real)'` if it should be yours")
        }
        let writableByOthers = info.st_mode & (S_IWGRP | S_IWOTH) != 0
        guard writableByOthers else { return real }
        if info.st_mode & S_ISVTX != 0 {
            throw Refusal(
                path: real,
                reason: "\(shown) is a shared directory (sticky and writable by others), where "
                    + "other users could plant entries",
                fix: "pass a directory of your own inside it, such as '\(real)/strata-etag'")
        }
        guard fchmod(fd, info.st_mode & 0o7777 & ~(S_IWGRP | S_IWOTH)) == 0 else {
            throw Refusal(
                path: real,
                reason: "\(shown) is writable by other users and cannot be tightened "
                    + "(\(String(cString: strerror(errno))))",
                fix: "run `chmod go-w '\(real)'` or use a directory of your own")
        }
        return real
    }
}
