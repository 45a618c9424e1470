#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension URLRequest {
    /// The value of the header field `name`, names compared ASCII-case-insensitively: what
    /// `value(forHTTPHeaderField:)` returns, for half its cost on Linux, where that method
    /// lower-cases every field name (and the one asked for) on each call. Layers read a header
    /// or two on every request, so this is on the hot path of a stack.
    func headerValue(_ name: String) -> String? {
        guard let fields = allHTTPHeaderFields, !fields.isEmpty else { return nil }
        if let value = fields[name] { return value } // Spelled as asked, as Strata's layers write them.
        return fields.first { HTTPHeaders.equal($0.key, name) }?.value
    }
}

extension URLRequest {
    /// A copy with the field `name` set to `value`, replacing any field of that name in any
    /// case: what `setValue(_:forHTTPHeaderField:)` gives, for half its cost on Linux, where it
    /// compares every field name case-insensitively through `NSString` on top of the copy.
    func settingHeaderValue(_ value: String, for name: String) -> URLRequest {
        var fields = allHTTPHeaderFields ?? [:]
        if fields[name] == nil, let other = fields.keys.first(where: { HTTPHeaders.equal($0, name) }) {
            fields[other] = nil
        }
        fields[name] = value
        var request = self
        request.allHTTPHeaderFields = fields
        return request
    }
}
