import Foundation
import Strata
@testable import StrataPinning

/// Parses `text` as the response to `method`, feeding it in one piece and then ending the
/// stream if the response needs it (a close-delimited body).
func parseResponse(
    _ text: String, method: HTTPMethod = .get,
    limits: HTTPLimits = .default
) throws(HTTP1ResponseError) -> HTTP1Response {
    try parseResponse(Array(text.utf8), method: method, limits: limits)
}

/// Parses `bytes` as the response to `method`, in pieces of `pieceSize` bytes (all at once
/// when `nil`), then ends the stream if the response needs it.
func parseResponse(
    _ bytes: [UInt8], method: HTTPMethod = .get, limits: HTTPLimits = .default,
    pieceSize: Int? = nil
) throws(HTTP1ResponseError) -> HTTP1Response {
    var parser = HTTP1ResponseParser(limits: limits)
    parser.expectResponse(to: method)
    var offset = 0
    let step = max(pieceSize ?? bytes.count, 1)
    while offset < bytes.count {
        let end = min(offset + step, bytes.count)
        if let response = try parser.feed(bytes[offset..<end]) { return response }
        offset = end
    }
    return try parser.finish()
}
