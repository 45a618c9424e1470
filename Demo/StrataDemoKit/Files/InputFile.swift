import Foundation

/// Reads a file named on the command line, up to a limit, with a reason a person can act on
/// when it cannot: a missing file, a directory, no permission, too large. Never traps, and
/// never reads more than the limit (a FIFO or `/dev/zero` ends at the limit too).
enum InputFile {
    /// Why a file could not be read.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// The path as given.
        let path: String
        /// What is wrong, such as `no such file`.
        let reason: String
        /// The option that named the file, such as `--ca`, when there is one.
        var option: String?

        /// `Cannot read '<path>' (<option>): <reason>.`
        var description: String {
            "Cannot read '\(path)'" + (option.map { " (\($0))" } ?? "") + ": \(reason)."
        }

        /// This failure, saying which option named the file.
        func named(_ option: String) -> Failure {
            var named = self
            named.option = option
            return named
        }
    }

    /// The file's bytes.
    ///
    /// - Parameters:
    ///   - path: The path as given; relative to the current directory.
    ///   - limit: The most bytes accepted.
    /// - Throws: ``Failure`` saying why the file cannot be used.
    static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw Failure(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(path: path, reason: "permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw Failure(path: path, reason: error.localizedDescription)
        }
        guard data.count <= limit else { throw Failure(path: path, reason: "it is larger than \(limit) bytes") }
        return data
    }
}
