#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing

@Suite("HTTP1RequestEncoder")
struct HTTP1RequestEncoderTests {
    private func encode(
        _ url: String, method: String = "GET", headers: [String: String] = [:],
        body: Data? = nil
    ) throws -> String {
        String(decoding: try encodeRequest(url, method: method, headers: headers, body: body).bytes, as: UTF8.self)
    }

    private func encodeRequest(
        _ url: String, method: String = "GET", headers: [String: String] = [:],
        body: Data? = nil
    ) throws(HTTPRequestError) -> HTTP1Request {
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: method), url: URL(string: url)!,
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        return try HTTP1RequestEncoder.encode(request, body: body.map { [UInt8]($0) } ?? [])
    }

    @Test("a GET is a request line with the origin-form target, Host and nothing else")
    func plainGet() throws {
        #expect(
            try encode("https://api.example.com/users?page=2#section")
                == "GET /users?page=2 HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
    }

    @Test("an empty path is sent as /")
    func emptyPath() throws {
        #expect(try encode("https://api.example.com").hasPrefix("GET / HTTP/1.1\r\n"))
    }

    @Test("the path and query stay percent-encoded and non-ASCII is escaped")
    func percentEncoding() throws {
        #expect(try encode("http://h/a%20b/%C3%A9?q=a%2Bb&r=x+y").hasPrefix("GET /a%20b/%C3%A9?q=a%2Bb&r=x+y HTTP/1.1\r\n"))
        #expect(try encode("http://h/caf\u{E9}?q=\u{E9}").hasPrefix("GET /caf%C3%A9?q=%C3%A9 HTTP/1.1\r\n"))
    }

    @Test("unreserved characters, sub-delimiters, ':', '@', '/', '?' and escapes stay literal in the target")
    func literalTargetCharacters() throws {
        let target = "/aZ9-._~!$&'()*+,;=:@/b?Q=/?:@!$&'()*+,;=-._~%41"
        #expect(try encode("http://h" + target).hasPrefix("GET \(target) HTTP/1.1\r\n"))
    }

    @Test("Host carries the port only when it is not the scheme's default")
    func hostPort() throws {
        #expect(try encode("http://h:8080/").contains("\r\nHost: h:8080\r\n"))
        #expect(try encode("http://h:80/").contains("\r\nHost: h\r\n"))
        #expect(try encode("https://h:443/").contains("\r\nHost: h\r\n"))
        #expect(try encode("https://h:80/").contains("\r\nHost: h:80\r\n"))
        #expect(try encode("http://[::1]:8080/").contains("\r\nHost: [::1]:8080\r\n"))
    }

    @Test("user information in the URL is never sent")
    func userInfoDropped() throws {
        let text = try encode("https://user:secret@h/x")
        #expect(!text.contains("secret"))
        #expect(text.contains("\r\nHost: h\r\n"))
    }

    @Test("a body of unknown length refuses any caller Content-Length, 0 included, over HTTP/1.1 and HTTP/2 alike")
    func unknownLengthRefusesContentLength() throws {
        for value in ["0", "5"] {
            let chunks = AsyncStream<ArraySlice<UInt8>> { $0.finish() }
            let request = HTTPRequest(
                method: .put, url: URL(string: "https://h/p")!, headers: ["Content-Length": value],
                body: HTTPBody(chunks, length: nil))
            #expect(ValidatedRequestHead.bodyLength(of: request) == nil)
            #expect(throws: HTTPRequestError.self, "Content-Length: \(value)") { try HTTP1RequestEncoder.encodeStreaming(request) }
            #expect(throws: HTTPRequestError.self, "Content-Length: \(value)") { try HTTP2Request(request) }
        }
    }

    @Test("a body is sent after Content-Length with its exact size")
    func bodyWithLength() throws {
        #expect(
            try encode("http://h/p", method: "POST", body: Data("hello".utf8))
                == "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
    }

    @Test("POST, PUT and PATCH without a body send Content-Length: 0; GET and DELETE send none")
    func emptyBodies() throws {
        for method in ["POST", "PUT", "PATCH"] {
            #expect(try encode("http://h/p", method: method).contains("\r\nContent-Length: 0\r\n"))
        }
        for method in ["GET", "DELETE", "HEAD"] {
            #expect(try !encode("http://h/p", method: method).contains("Content-Length"))
        }
    }

    @Test("caller headers are sent sorted by name, and Accept-Encoding is never added")
    func callerHeaders() throws {
        let text = try encode("http://h/", headers: ["X-B": "2", "Accept": "application/json", "X-A": "1"])
        #expect(text == "GET / HTTP/1.1\r\nHost: h\r\nAccept: application/json\r\nX-A: 1\r\nX-B: 2\r\n\r\n")
        #expect(!text.lowercased().contains("accept-encoding"))
    }

    @Test("a header with a control byte or a non-token name is refused, so nothing can be injected")
    func headerInjection() throws {
        // FoundationNetworking already drops values containing CR, LF or NUL; whatever it keeps,
        // the encoder checks again, so a value it passes through (BEL here) is refused too.
        #expect(throws: HTTPRequestError.invalidHeader(.invalidValue(name: "X-Evil", byte: 0x07))) {
            try encodeRequest("http://h/", headers: ["X-Evil": "a\u{7}b"])
        }
        #expect(throws: HTTPRequestError.invalidHeader(.invalidName("Bad Name"))) {
            try encodeRequest("http://h/", headers: ["Bad Name": "x"])
        }
        let crlf = (try? encode("http://h/", headers: ["X-Evil": "a\r\nInjected: yes"])) ?? ""
        #expect(!crlf.contains("Injected"))
    }

    @Test("Transfer-Encoding from the caller is refused")
    func transferEncodingRefused() {
        #expect(throws: HTTPRequestError.self) {
            try encodeRequest("http://h/", method: "POST", headers: ["Transfer-Encoding": "chunked"], body: Data("x".utf8))
        }
    }

    @Test("a caller Content-Length must match the body and is then written once")
    func contentLengthConflict() throws {
        #expect(throws: HTTPRequestError.self) {
            try encodeRequest("http://h/", method: "POST", headers: ["Content-Length": "10"], body: Data("abc".utf8))
        }
        let text = try encode("http://h/", method: "POST", headers: ["Content-Length": "3"], body: Data("abc".utf8))
        #expect(text.components(separatedBy: "Content-Length").count == 2)
    }

    @Test("a caller Host must equal the URL's authority and is then written once")
    func hostConflict() throws {
        #expect(throws: HTTPRequestError.self) { try encodeRequest("http://h:8080/", headers: ["Host": "other.example"]) }
        let text = try encode("http://h:8080/", headers: ["Host": "H:8080"])
        #expect(text == "GET / HTTP/1.1\r\nHost: h:8080\r\n\r\n")
    }

    @Test("Connection: close is honoured and marks the request; other Connection options are refused")
    func connectionHeader() throws {
        let closing = try encodeRequest("http://h/", headers: ["Connection": "close"])
        #expect(closing.closesConnection)
        #expect(String(decoding: closing.bytes, as: UTF8.self).contains("\r\nConnection: close\r\n"))
        let keeping = try encodeRequest("http://h/", headers: ["Connection": "keep-alive"])
        #expect(!keeping.closesConnection)
        #expect(!String(decoding: keeping.bytes, as: UTF8.self).contains("Connection"))
        #expect(throws: HTTPRequestError.self) { try encodeRequest("http://h/", headers: ["Connection": "Upgrade"]) }
    }

    @Test("unsupported schemes, CONNECT and invalid methods are refused before sending")
    func refusals() {
        #expect(throws: HTTPRequestError.unsupportedScheme("ftp")) { try encodeRequest("ftp://h/file") }
        #expect(throws: HTTPRequestError.unsupportedMethod("CONNECT")) { try encodeRequest("http://h/", method: "CONNECT") }
        #expect(throws: HTTPRequestError.unsupportedMethod("GE T")) { try encodeRequest("http://h/", method: "GE T") }
    }

    @Test("the encoded request remembers its method and URL for the parser and for errors")
    func metadata() throws {
        let request = try encodeRequest("http://h/x", method: "HEAD")
        #expect(request.method == .head)
        #expect(request.url?.absoluteString == "http://h/x")
        #expect(!request.closesConnection)
    }
}
