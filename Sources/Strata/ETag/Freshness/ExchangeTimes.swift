import Foundation

/// When the exchange that produced a stored response happened, on the storing instance's wall
/// clock: what RFC 9111 §4.2.3's age calculation needs besides the response's own `Date` and
/// `Age` fields (which stay in the stored headers, as received).
///
/// Stores persist it with the entry, as a versioned record. An entry without one (written before
/// Strata 0.4) or with a version this build does not know is *stale*: it may only be used after
/// the server confirms it (a 304), never served as fresh, because its age cannot be known.
package struct ExchangeTimes: Sendable, Hashable, Codable {
    /// The version this build writes and the only one it reads.
    package static let currentVersion = 1

    /// When the request that produced the response was sent (`request_time`).
    package var requestTime: Date
    /// When the response was received (`response_time`).
    package var responseTime: Date

    /// Creates the record of one exchange.
    ///
    /// - Parameters:
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When its response was received; a time before `requestTime` is
    ///     taken as `requestTime`.
    package init(requestTime: Date, responseTime: Date) {
        self.requestTime = requestTime
        self.responseTime = max(requestTime, responseTime)
    }

    private enum CodingKeys: String, CodingKey {
        case version, requestTime, responseTime
    }

    /// Decodes a record of version ``currentVersion``; times are seconds since 1970.
    ///
    /// - Throws: `DecodingError` for another version or a missing field (a store then reads
    ///   the entry as one without times: stale).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "exchange times of version \(version)")
        }
        let requestTime = try container.decode(Double.self, forKey: .requestTime)
        let responseTime = try container.decode(Double.self, forKey: .responseTime)
        guard requestTime.isFinite, responseTime.isFinite else {
            throw DecodingError.dataCorruptedError(
                forKey: .requestTime, in: container,
                debugDescription: "exchange times must be finite")
        }
        self.init(
            requestTime: Date(timeIntervalSince1970: requestTime),
            responseTime: Date(timeIntervalSince1970: responseTime))
    }

    /// Encodes the record with its version; times as seconds since 1970.
    ///
    /// - Throws: The encoder's error.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentVersion, forKey: .version)
        try container.encode(requestTime.timeIntervalSince1970, forKey: .requestTime)
        try container.encode(responseTime.timeIntervalSince1970, forKey: .responseTime)
    }
}
