/// Encodes a value for use as one segment of an endpoint path.
///
/// An endpoint's `path` is taken as a path: `/` separates segments and existing `%XX` escapes
/// are kept. A value interpolated into it must not be able to change the path's shape, so encode
/// it first:
/// ```swift
/// var path: String { "/files/\(PathSegment.encode(name))" }   // name "../admin" stays one segment
/// ```
public enum PathSegment {
    /// `value` with every character outside RFC 3986's unreserved set percent-encoded, and a
    /// value of `.` or `..` encoded as `%2E` / `%2E%2E` so it cannot become a dot segment.
    public static func encode(_ value: String) -> String {
        if value == "." || value == ".." { return String(repeating: "%2E", count: value.count) }
        return PercentEncoding.queryComponent(value)
    }
}
