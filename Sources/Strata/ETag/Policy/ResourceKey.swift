import Foundation

/// The resource part of an ETag key: a URL without fragment and userinfo, scheme and host
/// lower-cased, and the URL's userinfo (a credential, kept out of the key and counted in the
/// identity instead).
///
/// `URLComponents` does this for any URL, at the cost of a full parse and an IDNA pass over the
/// host (most of an ETag layer's time per request). A URL of the common shape (``SimpleURL``:
/// an ASCII `scheme://host[:port]` with a plain host name, a port without leading zeros and no
/// userinfo) is taken apart by one scan of its text instead, with the same result: the test
/// suite compares both on a corpus of URLs.
struct ResourceKey: Equatable {
    /// The URL without fragment and userinfo, scheme and host lower-cased.
    var resource: String
    /// `user:password` when the URL has userinfo.
    var userinfo: String?

    init(_ url: URL) {
        let text = url.absoluteString
        if let resource = SimpleURL.resource(ofAbsoluteString: text) {
            self.resource = resource
            userinfo = nil
        } else {
            self = Self.parsed(url, absoluteString: text)
        }
    }

    /// The key by `URLComponents`, for any URL.
    static func parsed(_ url: URL, absoluteString: String) -> ResourceKey {
        let userinfo = url.user != nil || url.password != nil ? "\(url.user ?? ""):\(url.password ?? "")" : nil
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            // A URL URLComponents cannot take apart is keyed by its digest: its text may hold userinfo.
            return ResourceKey(resource: "sha256:" + SHA256.hexDigest(Array(absoluteString.utf8)), userinfo: userinfo)
        }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        return ResourceKey(
            resource: components.string ?? "sha256:" + SHA256.hexDigest(Array(absoluteString.utf8)),
            userinfo: userinfo)
    }

    private init(resource: String, userinfo: String?) {
        self.resource = resource
        self.userinfo = userinfo
    }
}
