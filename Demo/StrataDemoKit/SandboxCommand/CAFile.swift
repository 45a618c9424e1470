import Foundation

/// Where `strata-demo sandbox` wrote its CA certificate: the file the user named, or `ca.pem`
/// in a new private (0700) temporary directory that is removed when the sandbox stops.
struct CAFile {
    /// The CA certificate could not be written.
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String

        var description: String { "Cannot write the CA certificate to '\(path)': \(reason). Pass a writable path with --write-ca." }
    }

    /// The PEM file's path.
    let path: String
    /// Whether the sandbox made the file (and its directory) and removes them.
    let isTemporary: Bool

    /// Writes `pem` to `path`, or to a new temporary file when `path` is `nil`.
    ///
    /// - Throws: ``WriteError`` naming the path and the reason.
    static func write(_ pem: String, to path: String?) throws(WriteError) -> CAFile {
        let file = if let path { CAFile(path: path, isTemporary: false) } else { try temporary() }
        do {
            try Data(pem.utf8).write(to: URL(fileURLWithPath: file.path), options: .atomic)
        } catch {
            throw WriteError(path: file.path, reason: error.localizedDescription)
        }
        return file
    }

    /// Removes the file and its directory when the sandbox made them; a named file stays.
    func removeIfTemporary() {
        guard isTemporary else { return }
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    private static func temporary() throws(WriteError) -> CAFile {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-sandbox-\(UUID().uuidString.prefix(8).lowercased())")
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw WriteError(path: directory.path, reason: error.localizedDescription)
        }
        return CAFile(path: directory.appendingPathComponent("ca.pem").path, isTemporary: true)
    }
}
