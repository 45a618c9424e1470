#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer
import TestSupport

/// Crash consistency: a process writing a ``FileETagStore`` can die at any instruction (SIGKILL,
/// the OOM killer, a power cut short of the disk), and the next process must find only complete,
/// correct entries and a store that works.
@Suite("FileETagStore after its writer is killed at random moments", .serialized)
struct FileETagStoreKillTests {
    /// The writer `swift build` put next to this test bundle (this target depends on it).
    private static let writer = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("etag-store-writer").path
    private static let keyCount = 24
    private static let maxTotalBytes = 16 * 1024
    private static let maxEntryBytes = 4 * 1024

    @Test(
        "200 SIGKILLs mid-write: every entry read is complete, correct and never older than one read before; no file is damaged; temporary files do not pile up; the size bound holds; the store keeps working"
    )
    func killedWriters() async throws {
        // Four directories, each with its own writer killed 50 times, side by side: 200 kills in
        // a few seconds on two cores.
        let totals = try await withThrowingTaskGroup(of: KillLoopOutcome.self) { group in
            for index in 0..<4 {
                group.addTask { try await Self.killLoop(rounds: 50, seed: UInt64(index) &* 0x9E37_79B9 &+ 13) }
            }
            return try await group.reduce(into: KillLoopOutcome()) {
                $0.kills += $1.kills; $0.interruptedWrites += $1.interruptedWrites
            }
        }
        #expect(totals.kills == 200)
        // Some kills landed inside a write (they left its temporary file); otherwise this test
        // would prove nothing about writes. About half do: fsync is most of a write's time.
        #expect(totals.interruptedWrites > 0)
    }

    private struct KillLoopOutcome: Sendable {
        var kills = 0
        /// Kills that left a temporary file: they interrupted a store() between creating its
        /// temporary file and renaming it.
        var interruptedWrites = 0
    }

    /// Starts and kills a writer `rounds` times on a fresh directory, checking the store after
    /// each kill and once more at the end.
    private static func killLoop(rounds: Int, seed: UInt64) async throws -> KillLoopOutcome {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SeededGenerator(seed: seed)
        var newest: [String: Int] = [:]
        var kills = 0
        // Kills since the last one that came after a completed operation: each may have left one
        // entry beyond the bound (stored, not yet evicted), and only a completed store() evicts.
        var killsWithoutCompletedOperation = 0
        for round in 0..<rounds {
            // Version numbers grow across rounds, so "never older" can be checked across kills.
            let child = try WriterProcess(
                writer,
                arguments: [
                    directory.path, String(keyCount), String(maxTotalBytes),
                    String(maxEntryBytes), String(round * 1_000_000),
                    String(random.next()),
                ])
            // Killed after 0 to 3 completed operations and a random fraction of the next one
            // (one takes about 3 ms, mostly fsync; a kill in its first half hits the write; under
            // a sanitizer everything but fsync is slower, hence the scale). With 0, the kill may
            // land in the store's start-up: its key file, its directory listing.
            let wanted = Int.random(in: 0...3, using: &random)
            let delay = TestTimeScale.scaled(.microseconds(Int.random(in: 0..<5_000, using: &random)))
            let run = await child.readThenKill(lines: wanted, thenWait: delay)
            #expect(run.lines == wanted, "the writer printed \(run.lines) of \(wanted) lines, then died by itself")
            #expect(run.killedBySIGKILL)
            kills += run.killedBySIGKILL ? 1 : 0
            try await checkEntries(in: directory, newest: &newest)
            killsWithoutCompletedOperation = run.lines > 0 ? 0 : killsWithoutCompletedOperation + 1
            let files = try DirectoryContents(directory)
            let allowance = maxEntryBytes * (1 + killsWithoutCompletedOperation)
            #expect(files.entryBytes <= maxTotalBytes + allowance, "\(files.entryBytes) bytes of entries")
            // At most one temporary file per kill; a completed store() never leaves one.
            #expect(files.temporaryFiles.count <= round + 1)
        }

        // A quarter of an hour later (the age after which a temporary file cannot belong to a
        // live writer), the next store cleans up and works within its bound.
        let leftovers = try DirectoryContents(directory).temporaryFiles
        for name in leftovers { try age(directory.appendingPathComponent(name), by: FileETagStore.staleTemporaryFileAge.inSeconds + 60) }
        let store = try FileETagStore(directory: directory, maxTotalBytes: maxTotalBytes, maxEntryBytes: maxEntryBytes)
        let fresh = ETagCacheEntry(response: HTTPResponse(statusCode: 200, headers: ["ETag": "\"fresh\""], body: Data("fresh".utf8)))
        await store.store(fresh, for: "key-0")
        #expect(await store.cachedResponse(for: "key-0") == fresh)
        let final = try DirectoryContents(directory)
        #expect(final.temporaryFiles.isEmpty, "\(leftovers.count) temporary files before, \(final.temporaryFiles) after")
        #expect(final.entryBytes <= maxTotalBytes)
        #expect(await store.byteCount == final.entryBytes)
        return KillLoopOutcome(kills: kills, interruptedWrites: leftovers.count)
    }

    /// Reads every key through a new store, as the next process would, and checks each entry
    /// against the writer's recipe (see Tests/ETagStoreWriter/main.swift).
    private static func checkEntries(in directory: URL, newest: inout [String: Int]) async throws {
        let store = try FileETagStore(directory: directory, maxTotalBytes: maxTotalBytes, maxEntryBytes: maxEntryBytes)
        let events = RecordingObserver()
        for key in (0..<keyCount).map({ "key-\($0)" }) {
            guard let entry = await observingEvents(events, { await store.cachedResponse(for: key) }) else { continue }
            let version = Int(entry.headers["X-Version"] ?? "")
            #expect(entry.statusCode == 200 && entry.headers["X-Key"] == key && version != nil, "\(key): \(entry.headers)")
            guard let version else { continue }
            #expect(entry.headers["ETag"] == "\"\(version)\"")
            #expect(
                entry.body.enumerated().allSatisfy { Int($0.element) == (version + $0.offset) % 251 },
                "\(key) version \(version): the body is not the one written")
            #expect(version >= newest[key, default: 0], "\(key): version \(version) after \(newest[key] ?? 0) was read")
            newest[key] = max(version, newest[key, default: 0])
        }
        let damaged = events.events(ETagStoreEvent.self).filter { if case .removedUnreadableFile = $0 { true } else { false } }
        #expect(damaged.isEmpty, "damaged files: \(damaged)")
    }

    private static func scratchDirectory() throws -> URL {
        // A disk-backed directory, not tmpfs: there fsync is real, and it is the long step a
        // kill most often interrupts.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Moves a file's modification time `seconds` into the past.
    private static func age(_ file: URL, by seconds: Double) throws {
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date ?? Date()
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(-seconds)], ofItemAtPath: file.path)
    }
}

/// The files a store directory holds: entries (by their total size) and temporary files.
private struct DirectoryContents {
    var entryBytes = 0
    var temporaryFiles: [String] = []

    init(_ directory: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                temporaryFiles.append(name)
            } else if name.hasSuffix(".etag") {
                let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size]
                entryBytes += (size as? Int) ?? 0
            }
        }
    }
}

/// One `etag-store-writer` child, started with posix_spawn so the test alone reaps it (Foundation's
/// `Process` reaps its children on a thread of its own).
private final class WriterProcess: Sendable {
    let pid: pid_t
    /// The read end of the child's standard output.
    private let output: Int32

    /// Held from creating a pipe until the child is spawned: pipe2(O_CLOEXEC) is not in Glibc's
    /// Swift module, and a writer spawned in between would inherit another writer's pipe (then a
    /// writer dying early would not end its reader's wait).
    private static let spawning = LockedValue(())

    init(_ executable: String, arguments: [String]) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        (pid, output) = try Self.spawning.withLock { _ throws -> (pid_t, Int32) in
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
            close(ends[1])
            guard status == 0 else {
                close(ends[0])
                throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
            }
            return (child, ends[0])
        }
    }

    deinit { close(output) }

    /// Reads `lines` lines of output (fewer if the child ends first), waits `delay`, then kills
    /// the child with SIGKILL and reaps it. The blocking calls run on a thread of their own.
    func readThenKill(lines wanted: Int, thenWait delay: Duration) async -> (lines: Int, killedBySIGKILL: Bool) {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                var lines = 0
                var byte: UInt8 = 0
                while lines < wanted, read(output, &byte, 1) == 1 {
                    if byte == UInt8(ascii: "\n") { lines += 1 }
                }
                usleep(useconds_t(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000))
                kill(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                // WIFSIGNALED / WTERMSIG are macros: the low 7 bits hold the signal.
                continuation.resume(returning: (lines, status & 0x7F == SIGKILL))
            }.start()
        }
    }
}
