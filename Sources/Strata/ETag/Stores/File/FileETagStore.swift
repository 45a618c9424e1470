import Foundation

/// An ``ETagStoreProtocol`` store on disk: entries survive process restarts, and two processes
/// may share one directory.
///
/// Use it for apps and tools that run repeatedly against the same API: after a restart the
/// first request for a resource is already conditional.
///
/// - **Layout.** One file per entry, named by the SHA-256 of its key plus `.etag`, in a
///   directory created with mode 0700; files are created 0600. The format (see
///   `ETagEntryFileFormat`) is versioned and carries its lengths and an HMAC-SHA256 tag under
///   the directory's secret key (`.strata-etag-key`, 32 random bytes, 0600), so a file the store
///   did not write is a miss, never a response.
/// - **Only the owner writes.** A directory owned by another user, or a shared sticky one such
///   as `/tmp`, is refused (``FileETagStoreError/unsafeDirectory(path:reason:fix:)``); one that
///   group or others may write is tightened (`chmod go-w`). A symbolic link is resolved once, at
///   creation, and the real directory checked and used.
/// - **No URL credentials on disk.** Files hold a SHA-256 digest of the key, never the key (its
///   URL may carry `?access_token=`), and the response's URL without userinfo and with secret
///   query values redacted (see `ETagEntryFileFormat`).
/// - **Atomic writes.** A temporary file in the same directory is written, `fsync`ed and renamed
///   over the entry, so a crash or a concurrent reader in another process never sees a torn
///   entry.
/// - **Damage is a miss.** A truncated, corrupt, oversized or foreign-version file is treated as
///   absent, removed, and reported as ``ETagStoreEvent/removedUnreadableFile(name:reason:)``.
///   Files that are not named like entries are left alone and not counted.
/// - **Bounds.** At most `maxTotalBytes` of entry files, evicting the least recently used first
///   (reading an entry marks it used by touching its modification time, so the order survives
///   restarts); an entry file larger than `maxEntryBytes` is neither written nor read.
///   The index is built from the directory on first use. Each process enforces the bound on the
///   files it knows of, so with two processes the directory may briefly exceed it by what the
///   other one wrote.
/// - **Never on the cooperative pool.** File I/O blocks, so the store's work runs on a serial
///   queue of its own; callers only suspend.
/// - **Failures** (disk full, permissions) are reported as
///   ``ETagStoreEvent/fileOperationFailed(operation:path:reason:)``; the store then behaves as
///   if the entry were absent, so a request never fails because of it. Every ``ETagStoreEvent``
///   goes through ``TransportEvents`` to the observers of the request that caused it.
public actor FileETagStore: ETagStoreProtocol {
    private struct Index {
        var sizes: [String: Int] = [:]
        var order = LeastRecentlyUsedOrder<String>()
        var totalBytes = 0

        mutating func record(_ name: String, size: Int) {
            totalBytes += size - (sizes[name] ?? 0)
            sizes[name] = size
            order.touch(name)
        }

        mutating func forget(_ name: String) {
            guard let size = sizes.removeValue(forKey: name) else { return }
            totalBytes -= size
            order.remove(name)
        }
    }

    /// How old a temporary file must be before it is taken for a crashed writer's and removed;
    /// younger ones may belong to another process writing right now.
    static let staleTemporaryFileAge: Duration = .seconds(15 * 60)
    private static let fileSuffix = ".etag"

    private let directory: EntryDirectory
    private let authenticationKey: [UInt8]
    private let maxTotalBytes: Int
    private let maxEntryBytes: Int
    private let executor: QueueExecutor
    private var index = Index()
    private var isIndexLoaded = false

    /// The executor all of the store's work runs on: a serial dispatch queue of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates a store in `directory`, creating it (and missing parents) with mode 0700.
    ///
    /// - Parameters:
    ///   - directory: A directory for this store's files only; another `FileETagStore`, in this
    ///     process or another, may share it.
    ///   - maxTotalBytes: The most bytes of entry files kept. Default: 64 MiB.
    ///   - maxEntryBytes: The largest entry file written or read. Default: 8 MiB.
    /// - Throws: ``FileETagStoreError`` when the directory cannot be created or is a file, or
    ///   someone other than this process's user could write to it.
    ///
    /// An existing directory keeps its permissions, less any write permission for group and
    /// others. The initializer makes a few quick file system calls on the calling thread (create
    /// and check the directory, read or create its key); the directory is listed on first use,
    /// on the store's own queue.
    public init(directory: URL, maxTotalBytes: Int = 64 << 20, maxEntryBytes: Int = 8 << 20) throws {
        do {
            let entries = try EntryDirectory.create(at: directory)
            self.directory = entries
            authenticationKey = try StoreKeyFile.loadOrCreate(in: entries.path)
        } catch let refusal as SafeDirectory.Refusal {
            throw FileETagStoreError.unsafeDirectory(path: refusal.path, reason: refusal.reason, fix: refusal.fix)
        } catch let error as EntryDirectory.Failure {
            throw FileETagStoreError.cannotUseDirectory(path: error.path, reason: error.reason)
        }
        self.maxTotalBytes = max(0, maxTotalBytes)
        self.maxEntryBytes = max(ETagEntryFileFormat.headerByteCount, maxEntryBytes)
        executor = QueueExecutor(label: "Strata.FileETagStore")
    }

    /// Returns the entry stored under `key`, or `nil` when it is absent or unreadable (an
    /// unreadable file is removed).
    public func cachedResponse(for key: String) -> ETagCacheEntry? {
        loadIndexIfNeeded()
        let name = Self.fileName(for: key)
        let file: EntryDirectory.ReadFile
        do {
            guard let read = try directory.read(name, maxBytes: maxEntryBytes) else {
                index.forget(name)
                return nil
            }
            file = read
        } catch  where error.isUnusableFile {
            // Oversized or not a regular file: never loaded, removed like any damaged entry.
            remove(name)
            TransportEvents.emit(ETagStoreEvent.removedUnreadableFile(name: name, reason: error.reason))
            return nil
        } catch {
            // Possibly passing (too many open files, permissions being fixed): keep the file.
            TransportEvents.emit(ETagStoreEvent.fileOperationFailed(operation: error.operation, path: error.path, reason: error.reason))
            return nil
        }
        do throws(ETagEntryFileError) {
            let entry = try ETagEntryFileFormat.decode(file.contents, for: key, authenticationKey: authenticationKey)
            index.record(name, size: file.contents.count)
            return entry
        } catch {
            directory.remove(name, ifStill: file)
            index.forget(name)
            TransportEvents.emit(ETagStoreEvent.removedUnreadableFile(name: name, reason: error.description))
            return nil
        }
    }

    /// Whether an entry file exists for `key`, checked without reading it (it may still turn
    /// out unreadable when read).
    public func containsEntry(for key: String) -> Bool {
        directory.exists(Self.fileName(for: key))
    }

    /// Writes `entry` under `key` atomically, then evicts least recently used entries until the
    /// directory is within `maxTotalBytes`. Failures are reported and leave no entry behind.
    public func store(_ entry: ETagCacheEntry, for key: String) {
        loadIndexIfNeeded()
        let name = Self.fileName(for: key)
        let contents: Data
        do {
            contents = try ETagEntryFileFormat.encode(key: key, entry: entry, authenticationKey: authenticationKey)
        } catch {
            TransportEvents.emit(ETagStoreEvent.fileOperationFailed(operation: "encode", path: name, reason: String(describing: error)))
            return remove(name)
        }
        let limit = min(maxEntryBytes, maxTotalBytes)
        guard contents.count <= limit else {
            TransportEvents.emit(
                ETagStoreEvent.rejectedTooLarge(
                    keyDigest: ETagEntryFileFormat.keyDigest(of: key), bytes: contents.count,
                    limit: limit))
            return remove(name)
        }
        do {
            try directory.writeAtomically(contents, to: name)
        } catch {
            TransportEvents.emit(ETagStoreEvent.fileOperationFailed(operation: error.operation, path: error.path, reason: error.reason))
            return remove(name)
        }
        index.record(name, size: contents.count)
        while index.totalBytes > maxTotalBytes, let victim = index.order.oldest {
            let bytes = index.sizes[victim] ?? 0
            remove(victim)
            TransportEvents.emit(ETagStoreEvent.evicted(keyDigest: String(victim.dropLast(Self.fileSuffix.count)), bytes: bytes))
        }
    }

    /// Removes the entry stored under `key`, if any.
    public func remove(for key: String) {
        loadIndexIfNeeded()
        remove(Self.fileName(for: key))
    }

    /// Removes every entry file in the directory, including those another store instance wrote.
    public func removeAll() {
        loadIndexIfNeeded()
        for name in index.sizes.keys { remove(name) }
        for file in (try? directory.listing()) ?? [] where Self.isEntryFileName(file.name) { remove(file.name) }
    }

    /// The bytes of entry files this store knows of, as counted against `maxTotalBytes`.
    package var byteCount: Int {
        loadIndexIfNeeded()
        return index.totalBytes
    }

    /// The file name for `key`: its SHA-256 in hex plus `.etag`, so keys never appear on disk
    /// as names and every name has the same safe shape.
    static func fileName(for key: String) -> String {
        ETagEntryFileFormat.keyDigest(of: key) + fileSuffix
    }

    /// The name of the directory's key file.
    static var keyFileName: String { StoreKeyFile.fileName }

    static func isEntryFileName(_ name: String) -> Bool {
        name.hasSuffix(fileSuffix) && name.utf8.count == 64 + fileSuffix.utf8.count
            && name.utf8.prefix(64).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private func remove(_ name: String) {
        do {
            try directory.remove(name)
        } catch {
            TransportEvents.emit(ETagStoreEvent.fileOperationFailed(operation: error.operation, path: error.path, reason: error.reason))
        }
        index.forget(name)
    }

    /// The index, built on first use from the directory: entry files oldest-modified first,
    /// and stale temporary files from crashed writers removed.
    private func loadIndexIfNeeded() {
        guard !isIndexLoaded else { return }
        isIndexLoaded = true
        let files: [EntryDirectory.ListedFile]
        do {
            files = try directory.listing()
        } catch {
            TransportEvents.emit(ETagStoreEvent.fileOperationFailed(operation: error.operation, path: error.path, reason: error.reason))
            files = []
        }
        let now = Date().timeIntervalSince1970
        for file in files.sorted(by: { $0.modified < $1.modified }) {
            if Self.isEntryFileName(file.name) {
                index.record(file.name, size: file.size)
            } else if file.name.hasPrefix("."), file.name.hasSuffix(".tmp"),
                now - file.modified > Self.staleTemporaryFileAge.inSeconds
            {
                try? directory.remove(file.name)
            }
        }
    }
}
