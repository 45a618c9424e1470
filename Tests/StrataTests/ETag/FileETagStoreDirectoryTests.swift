#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import Testing

@Suite("FileETagStore trusts only a directory no one else can write, and only entries it wrote")
struct FileETagStoreDirectoryTests {
    let entry = ETagCacheEntry(
        response: HTTPResponse(
            statusCode: 200, headers: ["ETag": "\"1\""], body: Data("genuine".utf8),
            url: URL(string: "https://example.com/r")))

    func mode(of path: String) -> mode_t {
        var info = stat()
        lstat(path, &info)
        return info.st_mode & 0o7777
    }

    @Test("an existing directory writable by group or others is tightened when this process owns it")
    func tightened() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.createDirectory(at: directory.storeURL, withIntermediateDirectories: true)
        chmod(directory.storeURL.path, 0o777)
        _ = try FileETagStore(directory: directory.storeURL)
        #expect(mode(of: directory.storeURL.path) & 0o022 == 0)
    }

    @Test(
        "a directory owned by another user is refused, and the error says how to fix it",
        .enabled(if: geteuid() == 0, "needs root to give a directory to another user"))
    func foreignOwnerRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.createDirectory(at: directory.storeURL, withIntermediateDirectories: true)
        chown(directory.storeURL.path, 65534, 65534)
        let error = #expect(throws: FileETagStoreError.self) { try FileETagStore(directory: directory.storeURL) }
        #expect(error?.description.contains("owned by") == true)
        #expect(error?.description.contains("chown") == true)
    }

    @Test("a symbolic link to a directory someone else can write is refused, not followed blindly")
    func symlinkToUnsafeDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let shared = directory.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o1777)
        // Sticky and world-writable like /tmp, and owned by someone else when we can arrange it.
        if geteuid() == 0 { chown(shared.path, 65534, 65534) }
        try FileManager.default.createSymbolicLink(at: directory.storeURL, withDestinationURL: shared)
        #expect(throws: FileETagStoreError.self) { try FileETagStore(directory: directory.storeURL) }
    }

    @Test("an entry file planted from another store's directory is a miss, and is removed")
    func plantedEntryIsMiss() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let attacker = directory.url.appendingPathComponent("attacker")
        let forged = ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200, headers: ["ETag": "\"1\""], body: Data("forged".utf8),
                url: URL(string: "https://example.com/r")))
        await (try FileETagStore(directory: attacker)).store(forged, for: "key")
        let store = try FileETagStore(directory: directory.storeURL)
        await store.store(entry, for: "other")
        let name = FileETagStore.fileName(for: "key")
        try FileManager.default.copyItem(
            at: attacker.appendingPathComponent(name),
            to: directory.storeURL.appendingPathComponent(name))
        let reader = try FileETagStore(directory: directory.storeURL)
        #expect(await reader.cachedResponse(for: "key") == nil)
        #expect(await reader.cachedResponse(for: "other") == entry)
        #expect(!FileManager.default.fileExists(atPath: directory.storeURL.appendingPathComponent(name).path))
    }

    @Test("the per-store key is a private file, and is the same for every instance on the directory")
    func keyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let first = try FileETagStore(directory: directory.storeURL)
        await first.store(entry, for: "key")
        let second = try FileETagStore(directory: directory.storeURL)
        #expect(await second.cachedResponse(for: "key") == entry)
        let keyPath = directory.storeURL.appendingPathComponent(FileETagStore.keyFileName).path
        #expect(mode(of: keyPath) & 0o777 == 0o600)
    }
}
