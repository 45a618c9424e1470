#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// Maps FoundationNetworking's `NSURLErrorDomain` codes to ``TransportError/Kind``.
enum URLErrorClassification {
    static func kind(of error: any Error) -> TransportError.Kind {
        let error = error as NSError
        guard error.domain == NSURLErrorDomain else { return .other }
        switch error.code {
        case NSURLErrorTimedOut:
            return .timedOut
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
            NSURLErrorNotConnectedToInternet:
            return .cannotConnect
        case NSURLErrorNetworkConnectionLost, NSURLErrorZeroByteResource:
            return .connectionLost
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateHasBadDate,
            NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot,
            NSURLErrorServerCertificateNotYetValid, NSURLErrorClientCertificateRejected,
            NSURLErrorClientCertificateRequired:
            return .tls
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return .invalidRequest
        case NSURLErrorBadServerResponse, NSURLErrorCannotDecodeRawData, NSURLErrorCannotDecodeContentData,
            NSURLErrorCannotParseResponse, NSURLErrorDataLengthExceedsMaximum:
            return .invalidResponse
        case NSURLErrorHTTPTooManyRedirects, NSURLErrorRedirectToNonExistentLocation:
            return .tooManyRedirects
        case NSURLErrorUnknown:
            return kind(ofCurlText: error.localizedDescription)
        default:
            return .other
        }
    }

    /// Linux quirk: FoundationNetworking reports many libcurl failures as code -1 (unknown) with
    /// curl's own text, so the text is all there is to classify.
    static func kind(ofCurlText text: String) -> TransportError.Kind {
        let text = text.lowercased()
        if ["ssl", "tls", "certificate"].contains(where: text.contains) { return .tls }
        let lost = ["transfer closed", "connection reset", "recv failure", "send failure", "empty reply", "connection died"]
        if lost.contains(where: text.contains) { return .connectionLost }
        if text.contains("timed out") || text.contains("timeout") { return .timedOut }
        if text.contains("couldn't connect") || text.contains("could not resolve") { return .cannotConnect }
        return .other
    }
}
