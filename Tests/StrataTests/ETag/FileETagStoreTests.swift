#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("FileETagStore on a temporary directory")
struct FileETagStoreTests {
    func entry(_ body: String, etag: String = "\"1\"") -> ETagCacheEntry {
        ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200, headers: ["ETag": etag], body: Data(body.utf8),
                url: URL(string: "https://example.com/r")))
    }

    func entryPath(_ directory: TemporaryDirectory, key: String) -> String {
        directory.storeURL.appendingPathComponent(FileETagStore.fileName(for: key)).path
    }

    func mode(of path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    /// The directory's files, less the store's key file.
    func directoryNames(_ directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)) ?? [])
            .filter { $0 != FileETagStore.keyFileName }.sorted()
    }

    @Test("an entry written by one instance is read by a second instance on the same directory")
    func persistsAcrossInstances() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let writer = try FileETagStore(directory: directory.storeURL)
        await writer.store(entry("persisted"), for: "key")
        let reader = try FileETagStore(directory: directory.storeURL)
        #expect(await reader.cachedResponse(for: "key") == entry("persisted"))
        #expect(await reader.cachedResponse(for: "other") == nil)
        await reader.remove(for: "key")
        #expect(await writer.cachedResponse(for: "key") == nil)
    }

    @Test("the directory is created 0700, entry files 0600, and no key or credential names a file")
    func permissionsAndNames() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let key = ConditionalRequestPolicy().primaryKey(
            for: makeRequest(
                "https://example.com/r",
                headers: ["Authorization": "Bearer secret"]))
        await store.store(entry("x"), for: key)
        #expect(mode(of: directory.storeURL.path) == 0o700)
        #expect(FileManager.default.fileExists(atPath: directory.storeURL.appendingPathComponent(FileETagStore.keyFileName).path))
        let names = directoryNames(directory)
        #expect(names.count == 1)
        #expect(names.allSatisfy { FileETagStore.isEntryFileName($0) })
        #expect(mode(of: directory.storeURL.appendingPathComponent(names[0]).path) == 0o600)
        let contents = try Data(contentsOf: directory.storeURL.appendingPathComponent(names[0]))
        #expect(String(decoding: contents, as: UTF8.self).contains("secret") == false)
    }

    @Test("a truncated entry file is a miss and is removed")
    func truncatedFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let events = RecordingObserver()
        let store = try FileETagStore(directory: directory.storeURL)
        await store.store(entry("a body long enough to cut"), for: "key")
        let path = entryPath(directory, key: "key")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size - 5)) == 0)

        #expect(await observingEvents(events) { await store.cachedResponse(for: "key") } == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(events.events(ETagStoreEvent.self).contains { if case .removedUnreadableFile = $0 { true } else { false } })
    }

    @Test("garbage under an entry's name is a miss and removed; unrelated files are left alone")
    func garbageFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let path = entryPath(directory, key: "key")
        try Data("definitely not an entry".utf8).write(to: URL(fileURLWithPath: path))
        let unrelated = directory.storeURL.appendingPathComponent("README.txt")
        try Data("hello".utf8).write(to: unrelated)

        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        await store.store(entry("fresh"), for: "key")
        #expect(await store.cachedResponse(for: "key") == entry("fresh"))
        await store.removeAll()
        #expect(directoryNames(directory) == ["README.txt"])
    }

    @Test("a file holding another key's entry, or another format version, is a miss")
    func foreignEntries() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        await store.store(entry("b"), for: "b")
        try FileManager.default.copyItem(atPath: entryPath(directory, key: "b"), toPath: entryPath(directory, key: "a"))
        #expect(await store.cachedResponse(for: "a") == nil)

        var future = try Data(contentsOf: URL(fileURLWithPath: entryPath(directory, key: "b")))
        future[11] = 9
        try future.write(to: URL(fileURLWithPath: entryPath(directory, key: "b")))
        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(directoryNames(directory).isEmpty)
    }

    @Test("a file larger than the entry limit is removed without being read whole")
    func oversizedFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL, maxEntryBytes: 4_096)
        let path = entryPath(directory, key: "key")
        // A sparse 1 GiB file: reading it whole would take a gigabyte of memory.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("STRATAET".utf8)))
        #expect(truncate(path, 1 << 30) == 0)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("the total size bound evicts the least recently used entries, counting reads as uses")
    func sizeBound() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let body = String(repeating: "x", count: 1_000)
        let fileSize = try ETagEntryFileFormat.encode(key: "k0", entry: entry(body), authenticationKey: []).count
        let events = RecordingObserver()
        let store = try FileETagStore(directory: directory.storeURL, maxTotalBytes: fileSize * 3 + 100)
        await observingEvents(events) {
            for index in 0..<3 { await store.store(entry(body), for: "k\(index)") }
            _ = await store.cachedResponse(for: "k0")
            await store.store(entry(body), for: "k3")
        }

        #expect(await store.cachedResponse(for: "k1") == nil)
        for key in ["k0", "k2", "k3"] { #expect(await store.cachedResponse(for: key) != nil, "\(key)") }
        #expect(directoryNames(directory).count == 3)
        #expect(await store.byteCount <= fileSize * 3 + 100)
        #expect(events.events(ETagStoreEvent.self).contains(.evicted(keyDigest: ETagStoreEvent.keyDigest(of: "k1"), bytes: fileSize)))
    }

    @Test("a new instance rebuilds the bound from the directory, oldest files first")
    func boundAcrossRestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let body = String(repeating: "x", count: 1_000)
        let fileSize = try ETagEntryFileFormat.encode(key: "k0", entry: entry(body), authenticationKey: []).count
        let first = try FileETagStore(directory: directory.storeURL)
        for index in 0..<3 { await first.store(entry(body), for: "k\(index)") }
        // Make k0 the oldest by its modification time, as a restart would find it.
        var old = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, entryPath(directory, key: "k0"), &old, 0) == 0)

        let second = try FileETagStore(directory: directory.storeURL, maxTotalBytes: fileSize * 3 + 100)
        #expect(await second.byteCount == fileSize * 3)
        await second.store(entry(body), for: "k3")
        #expect(await second.cachedResponse(for: "k0") == nil)
        #expect(await second.cachedResponse(for: "k1") != nil)
    }

    @Test("an entry larger than the bounds is refused and leaves no file")
    func refusesHugeEntry() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL, maxEntryBytes: 1_000)
        await store.store(entry("small"), for: "key")
        await store.store(entry(String(repeating: "x", count: 2_000)), for: "key")
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(directoryNames(directory).isEmpty)
    }

    @Test("stale temporary files from a crashed writer are cleaned up; fresh ones are not")
    func staleTemporaryFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try FileETagStore(directory: directory.storeURL)
        let stale = directory.storeURL.appendingPathComponent(".abc.etag.1.tmp").path
        let fresh = directory.storeURL.appendingPathComponent(".abc.etag.2.tmp").path
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("half".utf8)))
        #expect(FileManager.default.createFile(atPath: fresh, contents: Data("half".utf8)))
        var old = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, stale, &old, 0) == 0)
        let store = try FileETagStore(directory: directory.storeURL)
        #expect(await store.byteCount == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
    }

    @Test("a path that is a file cannot be a store directory")
    func directoryIsAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data().write(to: directory.storeURL)
        #expect(throws: FileETagStoreError.self) { try FileETagStore(directory: directory.storeURL) }
    }

    @Test("concurrent writers in two instances never produce a torn or foreign read")
    func concurrentWriters() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let body = String(repeating: "y", count: 2_000)
        let fileSize = try ETagEntryFileFormat.encode(key: "shared-0", entry: entry(body + "0", etag: "\"0\""), authenticationKey: []).count
        let events = RecordingObserver()
        let first = try FileETagStore(directory: directory.storeURL, maxTotalBytes: fileSize * 6)
        let second = try FileETagStore(directory: directory.storeURL, maxTotalBytes: fileSize * 6)
        let expected = Set((0..<10).map { entry(body + "\($0)", etag: "\"\($0)\"") })
        for key in 0..<3 { await first.store(entry(body + "0", etag: "\"0\""), for: "shared-\(key)") }

        let reads = await observingEvents(events) {
            await withTaskGroup(of: [ETagCacheEntry?].self) { group in
                for task in 0..<8 {
                    let store = task.isMultiple(of: 2) ? first : second
                    group.addTask {
                        var seen: [ETagCacheEntry?] = []
                        for round in 0..<25 {
                            let version = (task + round) % 10
                            await store.store(self.entry(body + "\(version)", etag: "\"\(version)\""), for: "shared-\(round % 3)")
                            seen.append(await store.cachedResponse(for: "shared-\((round + 1) % 3)"))
                        }
                        return seen
                    }
                }
                var all: [ETagCacheEntry?] = []
                for await seen in group { all += seen }
                return all
            }
        }
        // Every key always exists, so a read that found nothing saw a torn or missing file.
        #expect(reads.count == 200)
        #expect(reads.allSatisfy { $0.map(expected.contains) == true })
        #expect(events.all.isEmpty, "no unreadable files, failures or evictions: \(events.all)")
        let names = directoryNames(directory)
        #expect(names.allSatisfy { FileETagStore.isEntryFileName($0) }, "no temporary files left: \(names)")
        #expect(names.count <= 3)
    }
}
