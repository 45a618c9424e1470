import Foundation
import Testing

@testable import Strata

@Suite("ContentRange: the byte ranges of RFC 9110 §14.4, and nothing else")
struct ContentRangeTests {
    @Test(
        "RFC 9110 §14.4: a satisfied range, with its complete length or *",
        arguments: [
            ("bytes 400-999/1000", Int64(400)...999, Int64?(1000)), ("BYTES 0-0/1", 0...0, 1),
            ("bytes 5-9/*", 5...9, nil), ("  bytes 1-2/3 ", 1...2, 3),
        ])
    func satisfied(field: String, range: ClosedRange<Int64>, length: Int64?) {
        #expect(ContentRange(field) == ContentRange(range: range, completeLength: length))
    }

    @Test("RFC 9110 §14.4: an unsatisfied range names only the complete length")
    func unsatisfied() {
        #expect(ContentRange("bytes */1000") == ContentRange(range: nil, completeLength: 1000))
    }

    @Test(
        "RFC 9110 §14.4: anything else is malformed",
        arguments: [
            "", "bytes", "items 0-1/2", "bytes 5-4/10", "bytes 0-10/10", "bytes */*", "bytes -1-5/10", "bytes 1-/10",
            "bytes 1 - 5/10", "bytes 1-5", "bytes=1-5/10", "bytes 0-5/1000000000000000000000", "bytes +1-5/10",
        ])
    func malformed(field: String) {
        #expect(ContentRange(field) == nil)
    }
}

@Suite("ResumePolicy: which validator resumes a download, and what a response means for the partial file")
struct ResumePolicyTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("RFC 9110 §13.1.5: a strong ETag is the If-Range validator, as the server sent it")
    func strongETag() {
        #expect(ResumePolicy.validator(of: ["ETag": "\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], now: now) == "\"v1\"")
    }

    @Test("RFC 9110 §13.1.5: a weak ETag is never sent in If-Range, and then neither is a date")
    func weakETag() {
        let headers: HTTPHeaders = [
            "ETag": "W/\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT", "Date": "Sun, 06 Nov 1994 09:00:00 GMT",
        ]
        #expect(ResumePolicy.validator(of: headers, now: now) == nil)
    }

    @Test("RFC 9110 §8.8.2.2: Last-Modified resumes only when at least a second older than Date")
    func lastModified() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(
            ResumePolicy.validator(of: ["Last-Modified": modified, "Date": "Sun, 06 Nov 1994 08:49:38 GMT"], now: now)
                == modified)
        #expect(ResumePolicy.validator(of: ["Last-Modified": modified, "Date": modified], now: now) == nil)
        #expect(ResumePolicy.validator(of: ["Last-Modified": modified], now: now) == nil)
    }

    func decide(_ status: Int, _ headers: HTTPHeaders, offset: Int64 = 400, resumed: Bool = true) -> ResumePolicy.Decision {
        ResumePolicy.decision(status: status, headers: headers, offset: offset, resumed: resumed, validator: "\"v1\"", now: now)
    }

    @Test("RFC 9110 §15.3.7: a 206 whose Content-Range starts at the partial file's end is appended")
    func appends() {
        #expect(decide(206, ["Content-Range": "bytes 400-999/1000", "ETag": "\"v1\""]) == .append(completeLength: 1000))
    }

    @Test("a 200 to a resumed request (validator changed, or ranges ignored) rewrites the file from its first byte")
    func restarts() {
        #expect(decide(200, ["ETag": "\"v2\""]) == .writeWhole(validator: "\"v2\""))
        #expect(decide(200, [:]) == .writeWhole(validator: nil))
    }

    @Test(
        "a 206 that does not continue the partial file is rejected, saying how",
        arguments: [
            ("bytes 0-999/1000", "starts at byte 0"), ("bytes 500-999/1000", "starts at byte 500"),
            ("bytes 400-1000/1000", "not a valid byte range"), ("octets 400-999/1000", "not a valid byte range"),
            ("bytes 400-899/1000", "ends at byte 899"), ("bytes 400-999/*", "does not say how long the file is"),
        ])
    func rejectsMismatch(field: String, reason: String) {
        guard case .reject(let text) = decide(206, ["Content-Range": field]) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(text.contains(reason))
    }

    @Test("a 206 without Content-Range, of another ETag, with a Content-Length that disagrees, or unasked, is rejected")
    func rejectsOther() {
        for decision in [
            decide(206, ["Content-Type": "multipart/byteranges; boundary=x"]),
            decide(206, ["Content-Range": "bytes 400-999/1000", "ETag": "\"v2\""]),
            decide(206, ["Content-Range": "bytes 400-999/1000", "Content-Length": "10"]),
            decide(206, ["Content-Range": "bytes 0-999/1000"], offset: 0, resumed: false),
        ] {
            guard case .reject = decision else {
                Issue.record("expected a rejection, got \(decision)")
                continue
            }
        }
    }

    @Test("RFC 9110 §15.5.17: a 416 for exactly the bytes held means the file is complete (curl: already downloaded)")
    func alreadyComplete() {
        #expect(decide(416, ["Content-Range": "bytes */400"]) == .alreadyComplete)
    }

    @Test("RFC 9110 §13.1.5: a 206 whose Last-Modified is not the date sent in If-Range is of another version")
    func rejectsAnotherDate() {
        let sent = "Sun, 06 Nov 1994 08:49:37 GMT"
        func decide(_ headers: HTTPHeaders) -> ResumePolicy.Decision {
            ResumePolicy.decision(status: 206, headers: headers, offset: 400, resumed: true, validator: sent, now: now)
        }
        #expect(decide(["Content-Range": "bytes 400-999/1000", "Last-Modified": sent]) == .append(completeLength: 1000))
        #expect(decide(["Content-Range": "bytes 400-999/1000"]) == .append(completeLength: 1000))
        guard case .reject(let reason) = decide(["Content-Range": "bytes 400-999/1000", "Last-Modified": "Mon, 07 Nov 1994 08:49:37 GMT"])
        else {
            Issue.record("expected a rejection")
            return
        }
        #expect(reason.contains("another version"))
    }

    @Test("RFC 9110 §15.5.17: a 416 of the right length but another strong or a weak ETag starts over")
    func alreadyCompleteChecksETag() {
        #expect(decide(416, ["Content-Range": "bytes */400", "ETag": "\"v1\""]) == .alreadyComplete)
        #expect(decide(416, ["Content-Range": "bytes */400", "ETag": "\"v2\""]) == .startOver)
        #expect(decide(416, ["Content-Range": "bytes */400", "ETag": "W/\"v1\""]) == .startOver)
    }

    @Test("RFC 9110 §15.5.17: a 416 for another length, or without Content-Range, starts over")
    func startOver() {
        #expect(decide(416, ["Content-Range": "bytes */300"]) == .startOver)
        #expect(decide(416, [:]) == .startOver)
    }
}
