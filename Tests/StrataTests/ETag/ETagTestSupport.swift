#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import Synchronization

/// A request for `url` with a method and header fields.
func makeRequest(_ url: String, method: String = "GET", headers: [String: String] = [:]) -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
}

/// A 200 response with a body and header fields.
func makeResponse(_ body: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
    HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8))
}

/// Collects events from a hook, for assertions.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    var all: [Event] { events.withLock { $0 } }
    var hook: @Sendable (Event) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-etag-\(UUID().uuidString)")
    }
    /// A path inside it that does not exist yet: stores create their own directory.
    var storeURL: URL { url.appendingPathComponent("store") }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}
