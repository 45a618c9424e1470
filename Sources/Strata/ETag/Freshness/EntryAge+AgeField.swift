extension EntryAge {
    /// The age a response says it had when it left the cache before (the `Age` field, RFC 9111
    /// §5.1), in seconds: the first member of its first field line, or `nil` when there is none
    /// or it is not a non-negative integer (then it is ignored).
    ///
    /// `Age` is a singleton, but a cache that meets a list (`Age: 7200, 0`, or two field lines
    /// a transport joined into one, as URLSession does) uses the first member (§5.1): reading the
    /// whole list as invalid would ignore the age and serve a response two hours old as fresh.
    static func receivedAge(in headers: HTTPHeaders) -> Int? {
        guard let line = headers["Age"] else { return nil }
        guard let comma = line.firstIndex(of: ",") else { return CacheDirectives.deltaSeconds(line) }
        return CacheDirectives.deltaSeconds(String(line[..<comma]))
    }
}
