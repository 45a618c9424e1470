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
            // Linux quirk: libcurl's TLS failures arrive as code -1 with curl's text.
            let text = error.localizedDescription.lowercased()
            let tlsWords = ["ssl", "tls", "certificate"]
            return tlsWords.contains { text.contains($0) } ? .tls : .other
        default:
            return .other
        }
    }
}
