import Foundation

/// A ``FileETagStore`` that cannot be created.
public enum FileETagStoreError: Error, Hashable, CustomStringConvertible {
    /// The directory could not be created, or the path exists and is not a directory.
    case cannotUseDirectory(path: String, reason: String)
    /// Someone other than this process's user could write to the directory (another owner, a
    /// shared sticky directory), and so plant entries; `fix` says what to do.
    case unsafeDirectory(path: String, reason: String, fix: String)

    /// What went wrong and what to check.
    public var description: String {
        switch self {
        case .cannotUseDirectory(let path, let reason):
            "FileETagStore cannot use \(path): \(reason). Pass a writable directory that is not a file."
        case .unsafeDirectory(_, let reason, let fix):
            "FileETagStore refuses to keep entries where other users could write them: \(reason). To fix it, \(fix)."
        }
    }
}

extension FileETagStoreError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
