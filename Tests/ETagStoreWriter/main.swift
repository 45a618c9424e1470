// etag-store-writer DIRECTORY KEYS MAX_TOTAL_BYTES MAX_ENTRY_BYTES FIRST_VERSION SEED
//
// The child process of FileETagStoreKillTests: stores, replaces and removes entries of a
// FileETagStore in DIRECTORY forever, and prints each version number once the operation
// returned, until the test kills it with SIGKILL.
//
// Operation n (version FIRST_VERSION + n) picks one of the keys `key-0` ..< `key-<KEYS>`; one in
// ten removes it, the others store this entry under it (what the test checks entries against):
//   status 200, headers X-Key: <key>, X-Version: <version>, ETag: "<version>";
//   body: a random number (< 1,500) of bytes, byte i being (version + i) % 251.
import Foundation
import Strata
import TestServer

let arguments = CommandLine.arguments
guard arguments.count == 7, let keyCount = Int(arguments[2]), keyCount > 0,
    let maxTotalBytes = Int(arguments[3]), let maxEntryBytes = Int(arguments[4]),
    let firstVersion = Int(arguments[5]), let seed = UInt64(arguments[6])
else {
    FileHandle.standardError.write(
        Data("usage: etag-store-writer DIRECTORY KEYS MAX_TOTAL_BYTES MAX_ENTRY_BYTES FIRST_VERSION SEED\n".utf8))
    exit(64)
}
let store = try FileETagStore(
    directory: URL(fileURLWithPath: arguments[1]),
    maxTotalBytes: maxTotalBytes, maxEntryBytes: maxEntryBytes)
var random = SeededGenerator(seed: seed)
var version = firstVersion
while true {
    version += 1
    let key = "key-\(Int.random(in: 0..<keyCount, using: &random))"
    if Int.random(in: 0..<10, using: &random) == 0 {
        await store.remove(for: key)
    } else {
        let body = Data((0..<Int.random(in: 0..<1_500, using: &random)).map { UInt8((version + $0) % 251) })
        let response = HTTPResponse(
            statusCode: 200, headers: ["X-Key": key, "X-Version": String(version), "ETag": "\"\(version)\""],
            body: body, url: nil)
        await store.store(ETagCacheEntry(response: response), for: key)
    }
    FileHandle.standardOutput.write(Data("\(version)\n".utf8))
}
