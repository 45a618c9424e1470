import Foundation

/// The sandbox API's routes; each handler reads and writes only the shared ``SandboxState``.
struct SandboxRoutes {
    let state: SandboxState

    func add(to server: SandboxServer) {
        let state = state
        server.route("POST", "/v1/token") { request in
            let form = Set(String(decoding: request.body, as: UTF8.self).split(separator: "&").map(String.init))
            guard form.contains("grant_type=refresh_token"), form.contains("refresh_token=\(state.refreshToken)") else {
                return .json(#"{"error":"invalid_grant"}"#, status: 400)
            }
            state.counters.withLock { $0.tokenGrants += 1 }
            return .json(#"{"access_token":"\#(state.validToken)","token_type":"Bearer","expires_in":3600}"#)
        }
        server.route("GET", "/v1/todos") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let (items, entityTag) = state.todos.withLock { ($0.items, $0.entityTag) }
            // RFC 9110 §13.1.2: If-None-Match lists tags, compared weakly.
            let offered =
                request.header("If-None-Match")?.split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") } ?? []
            if offered.contains(entityTag) || offered.contains("*") {
                state.counters.withLock { $0.notModified += 1 }
                return SandboxResponse(status: 304, headers: [("ETag", entityTag)])
            }
            return .json(Self.encode(items), headers: [("ETag", entityTag)])
        }
        server.route("POST", "/v1/todos") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            guard let draft = try? JSONDecoder().decode([String: String].self, from: request.body),
                let title = draft["title"], (1...Sandbox.maxTitleLength).contains(title.count)
            else {
                return .json(#"{"error":"expected {\"title\": \"1 to \#(Sandbox.maxTitleLength) characters\"}"}"#, status: 400)
            }
            let todo = state.todos.withLock { todos in
                let todo = SandboxState.Todo(id: (todos.items.map(\.id).max() ?? 0) + 1, title: title)
                todos.items.append(todo)
                todos.version += 1
                return todo
            }
            return .json(Self.encode(todo), status: 201, headers: [("Location", "/v1/todos/\(todo.id)")])
        }
        server.route("GET", "/v1/todos/*") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let id = Int(request.path.dropFirst("/v1/todos/".count))
            guard let todo = state.todos.withLock({ $0.items.first { $0.id == id } }) else {
                return .json(#"{"error":"not_found"}"#, status: 404)
            }
            return .json(Self.encode(todo))
        }
        server.route("GET", "/v1/health") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let call = state.counters.withLock { counters -> Int in
                counters.healthCalls += 1
                return counters.healthCalls
            }
            // Retry-After: 0 keeps the tour fast while still exercising the header path.
            guard call > 1 else { return .json(#"{"status":"warming up"}"#, status: 503, headers: [("Retry-After", "0")]) }
            return .json(#"{"status":"ok"}"#)
        }
        server.route("GET", "/v1/reports") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            state.counters.withLock { $0.reportCalls += 1 }
            // No Retry-After: a dependency that is down says nothing about when it will be back.
            return .json(#"{"status":"unavailable"}"#, status: 503)
        }
        server.route("GET", "/v1/export") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let line = Data(#"{"id":0,"title":"exported"}"#.utf8 + [UInt8(ascii: "\n")])
            var body = Data(capacity: Sandbox.exportBytes)
            while body.count + line.count <= Sandbox.exportBytes { body.append(line) }
            return SandboxResponse(
                status: 200, headers: [("Content-Type", "application/x-ndjson")], body: body,
                delay: Sandbox.exportDelay)
        }
    }

    private static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
