#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting

// StrataTesting names from api.md.

func testingContract() async throws {
    let canned = CannedResponse(string: "{}", statusCode: 200, headers: [:])
    _ = CannedResponse(data: Data(), statusCode: 204, headers: [:])
    _ = CannedResponseTransport(string: "{}", statusCode: 200, headers: [:])
    _ = CannedResponseTransport(response: canned)
    let routes = CannedRoutesTransport(routes: [
        CannedRoute(pattern: RequestPattern(method: .get, path: "/a"), response: canned),
        CannedRoute(pattern: RequestPattern(method: nil, pathRegex: "/b/.*"), responses: [canned, canned]),
        CannedRoute(pattern: RequestPattern(path: "/c"), error: URLError(.timedOut)),
        CannedRoute(pattern: RequestPattern(pathRegex: ".*"), response: canned),
    ])
    let transport: any Transport = routes
    _ = try await transport.send(URLRequest(url: URL(fileURLWithPath: "/")))
    let recorded: [HTTPRequest] = await routes.recordedRequests
    _ = recorded
}
