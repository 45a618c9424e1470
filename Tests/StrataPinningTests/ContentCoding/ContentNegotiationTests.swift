import Foundation
import Strata
@testable import StrataPinning
import Testing

/// The content-coding decisions, without a network: what is offered, what is decoded, which
/// headers the caller sees, and when the guards stop a body.
@Suite("Content negotiation and the expansion guard")
struct ContentNegotiationTests {
    static let url = URL(string: "https://api.example.com/v1/todos")!

    static func negotiation(
        _ headers: HTTPHeaders = [:], method: HTTPMethod = .get,
        decoding: ContentDecoding = ContentDecoding()
    ) -> ContentNegotiation {
        ContentNegotiation(HTTPRequest(method: method, url: url, headers: headers), offer: .init(decoding))
    }

    static func head(_ contentEncoding: String?, status: Int = 200) -> HTTPResponseHead {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Content-Length": "123"]
        if let contentEncoding { headers["Content-Encoding"] = contentEncoding }
        return HTTPResponseHead(statusCode: status, headers: headers, url: url)
    }

    @Test("a request without Accept-Encoding offers every supported coding, gzip and deflate first")
    func offersSupported() {
        let negotiation = Self.negotiation()
        #expect(negotiation.offered == ContentCoding.supported)
        #expect(negotiation.request.headers["Accept-Encoding"] == ContentCoding.supported.map(\.rawValue).joined(separator: ", "))
        #expect(negotiation.request.headers["Accept-Encoding"]?.hasPrefix("gzip, deflate") == true)
    }

    @Test("the caller's own Accept-Encoding is sent as is and nothing is decoded")
    func callersChoice() {
        let negotiation = Self.negotiation(["accept-encoding": "gzip"])
        #expect(negotiation.offered.isEmpty)
        #expect(negotiation.request.headers.values(for: "Accept-Encoding") == ["gzip"])
        #expect(negotiation.coding(of: Self.head("gzip")) == nil)
    }

    @Test("a Range request and a disabled configuration offer nothing")
    func offersNothing() {
        #expect(Self.negotiation(["Range": "bytes=0-99"]).offered.isEmpty)
        #expect(Self.negotiation(["Range": "bytes=0-99"]).request.headers["Accept-Encoding"] == nil)
        #expect(Self.negotiation(decoding: .disabled).request.headers["Accept-Encoding"] == nil)
        #expect(Self.negotiation(decoding: ContentDecoding(codings: [.gzip, .gzip])).request.headers["Accept-Encoding"] == "gzip")
    }

    @Test("exactly one offered coding is decoded; identity, stacked, unknown and unoffered codings are not")
    func whichResponsesAreDecoded() {
        let negotiation = Self.negotiation(decoding: ContentDecoding(codings: [.gzip, .deflate]))
        #expect(negotiation.coding(of: Self.head("gzip")) == .gzip)
        #expect(negotiation.coding(of: Self.head("GZIP")) == .gzip)
        #expect(negotiation.coding(of: Self.head("x-gzip")) == .gzip)
        #expect(negotiation.coding(of: Self.head(" deflate ")) == .deflate)
        #expect(negotiation.coding(of: Self.head("identity, gzip")) == .gzip)
        #expect(negotiation.coding(of: Self.head(nil)) == nil)
        #expect(negotiation.coding(of: Self.head("identity")) == nil)
        #expect(negotiation.coding(of: Self.head("gzip, gzip")) == nil)
        #expect(negotiation.coding(of: Self.head("deflate, gzip")) == nil)
        #expect(negotiation.coding(of: Self.head("compress")) == nil)
        #expect(negotiation.coding(of: Self.head("br")) == nil)
    }

    @Test("HEAD, 204 and 304 have no body to decode; every other final status does")
    func bodies() {
        #expect(!Self.negotiation(method: .head).hasBody(statusCode: 200))
        #expect(!Self.negotiation().hasBody(statusCode: 204))
        #expect(!Self.negotiation().hasBody(statusCode: 304))
        #expect(Self.negotiation().hasBody(statusCode: 200))
        #expect(Self.negotiation().hasBody(statusCode: 404))
    }

    @Test("a decoded head loses Content-Encoding and Content-Length, and so does a 304's")
    func decodedHead() async throws {
        let negotiation = Self.negotiation()
        let (head, _) = negotiation.decoded(
            Self.head("gzip", status: 304), HTTPBody(Data()), decoding: ContentDecoding(),
            maxDecodedBytes: nil)
        #expect(head.headers["Content-Encoding"] == nil)
        #expect(head.headers["Content-Length"] == nil)
        #expect(head.headers["Content-Type"] == "application/json")
        let untouched = negotiation.decoded(
            Self.head("compress"), HTTPBody(Data()), decoding: ContentDecoding(),
            maxDecodedBytes: nil
        ).0
        #expect(untouched == Self.head("compress"))
    }

    @Test("the ratio is checked only above its threshold, and the absolute limit always")
    func expansionGuard() throws {
        var ratio = ExpansionGuard(
            coding: .gzip, maxDecodedBytes: nil,
            decoding: ContentDecoding(maxExpansionRatio: 10, ratioCheckedAboveBytes: 1000))
        try ratio.count(1000, codedBytes: 1) // 1000:1, but not above the threshold yet
        #expect(throws: ExpansionGuard.Exceeded.ratio(.gzip, ratio: 10, decoded: 1001, coded: 100)) {
            try ratio.count(1, codedBytes: 100)
        }
        var fine = ExpansionGuard(
            coding: .gzip, maxDecodedBytes: nil,
            decoding: ContentDecoding(maxExpansionRatio: 10, ratioCheckedAboveBytes: 1000))
        try fine.count(5000, codedBytes: 500)
        var absolute = ExpansionGuard(coding: .brotli, maxDecodedBytes: (100, "the knob"), decoding: ContentDecoding())
        try absolute.count(100, codedBytes: 100)
        #expect(throws: ExpansionGuard.Exceeded.decodedBytes(.brotli, limit: 100, setting: "the knob")) {
            try absolute.count(1, codedBytes: 100)
        }
        var unlimited = ExpansionGuard(coding: .gzip, maxDecodedBytes: nil, decoding: ContentDecoding(maxExpansionRatio: .max))
        try unlimited.count(Int.max / 2, codedBytes: 1)
    }

    @Test("the guards' messages name the setting to change")
    func messages() {
        let ratio = ExpansionGuard.Exceeded.ratio(.gzip, ratio: 200, decoded: 2_000_000, coded: 1000).description
        #expect(ratio.contains("PinningTransport.Configuration.contentDecoding.maxExpansionRatio"))
        #expect(ratio.contains("decompression bomb"))
        let absolute = ExpansionGuard.Exceeded.decodedBytes(.zstd, limit: 64, setting: "ResponseBodyLimit.withMaxBytes").description
        #expect(absolute == "the zstd-coded body decodes to more than the 64-byte limit (ResponseBodyLimit.withMaxBytes)")
    }
}
