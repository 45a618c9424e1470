/// Counts a body's decoded bytes against its limits: an absolute one (the buffered limit, or
/// ``ContentDecoding/maxStreamedBytes``) and the expansion ratio of ``ContentDecoding``.
///
/// Pure bookkeeping, told how many bytes were decoded and how many coded bytes they came from;
/// the decoding body throws what it reports.
struct ExpansionGuard: Sendable {
    /// A limit a body passed, with what a person needs to raise it.
    enum Exceeded: Error, Sendable, Hashable, CustomStringConvertible {
        /// More decoded bytes than `limit`, set by `setting`.
        case decodedBytes(ContentCoding, limit: Int64, setting: String)
        /// More than `ratio` decoded bytes per coded byte.
        case ratio(ContentCoding, ratio: Int, decoded: Int64, coded: Int64)

        var description: String {
            switch self {
            case .decodedBytes(let coding, let limit, let setting):
                "the \(coding)-coded body decodes to more than the \(limit)-byte limit (\(setting))"
            case .ratio(let coding, let ratio, let decoded, let coded):
                "the \(coding)-coded body expands more than \(ratio) times (\(decoded) bytes from \(coded)), "
                    + "as a decompression bomb does (PinningTransport.Configuration.contentDecoding.maxExpansionRatio)"
            }
        }
    }

    let coding: ContentCoding
    /// The most decoded bytes, and the setting that chose it; nil for no absolute limit.
    let maxDecodedBytes: (limit: Int64, setting: String)?
    let maxRatio: Int
    let ratioCheckedAbove: Int64
    /// Decoded bytes counted so far.
    private(set) var decodedBytes: Int64 = 0

    /// Creates a guard for a body in `coding`.
    init(coding: ContentCoding, maxDecodedBytes: (limit: Int64, setting: String)?, decoding: ContentDecoding) {
        self.coding = coding
        self.maxDecodedBytes = maxDecodedBytes
        maxRatio = max(1, decoding.maxExpansionRatio)
        ratioCheckedAbove = Int64(max(0, decoding.ratioCheckedAboveBytes))
    }

    /// Counts `bytes` more decoded bytes, made from `codedBytes` coded bytes in all.
    ///
    /// - Throws: ``Exceeded`` when the body passed a limit.
    mutating func count(_ bytes: Int, codedBytes: Int64) throws(Exceeded) {
        decodedBytes += Int64(bytes)
        if let maxDecodedBytes, decodedBytes > maxDecodedBytes.limit {
            throw .decodedBytes(coding, limit: maxDecodedBytes.limit, setting: maxDecodedBytes.setting)
        }
        guard decodedBytes > ratioCheckedAbove else { return }
        let (allowed, overflow) = max(1, codedBytes).multipliedReportingOverflow(by: Int64(maxRatio))
        if !overflow, decodedBytes > allowed {
            throw .ratio(coding, ratio: maxRatio, decoded: decodedBytes, coded: codedBytes)
        }
    }
}
