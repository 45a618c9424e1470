#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL
import Foundation
import Strata
import TestServer

/// The loopback HTTP server behind TLS (OpenSSL server side), presenting one of the committed
/// fixture certificates from Tests/Fixtures/Pinning. Routing, recording and connection counting
/// are the plain server's; each connection is served on its own thread (never Swift's
/// cooperative pool), and its TLS session runs over memory BIOs with `MSG_NOSIGNAL` sends.
public final class TLSLoopbackServer: Sendable {
    /// What the server presents: a certificate chain file and the leaf's key.
    public struct Identity: Sendable {
        /// The PEM file sent as the certificate chain, leaf first.
        public var chainFile: String
        /// The leaf's private key.
        public var keyFile: String

        /// The private CA's EC leaf alone (no CA certificate sent): a leaf-only server.
        public static let leafOnly = Identity(chainFile: "leaf-ec.pem", keyFile: "leaf-ec.key")
        /// The private CA's RSA leaf alone.
        public static let rsaLeaf = Identity(chainFile: "leaf-rsa.pem", keyFile: "leaf-rsa.key")
        /// A leaf issued by the intermediate, sent with the intermediate.
        public static let viaIntermediate = Identity(
            chainFile: "leaf-via-intermediate-chain.pem",
            keyFile: "leaf-via-intermediate.key")
        /// A leaf of the private CA valid only in 2000–2001.
        public static let expired = Identity(chainFile: "expired.pem", keyFile: "expired.key")
        /// A leaf of the private CA for `wrong.example.net` only.
        public static let wrongHost = Identity(chainFile: "wrong-host.pem", keyFile: "wrong-host.key")
        /// A leaf that signs itself.
        public static let selfSigned = Identity(chainFile: "self-signed.pem", keyFile: "self-signed.key")
        /// The attacker CA's `localhost` leaf followed by the genuine private CA (CVE-2016-2402 shape).
        public static let forgedChain = Identity(chainFile: "forged-chain.pem", keyFile: "attacker-leaf.key")
        /// A leaf of the private CA with `CN=localhost` and no subjectAltName at all.
        public static let sanLess = Identity(chainFile: "san-less.pem", keyFile: "san-less.key")
    }

    /// One completed server-side handshake, as the server saw it.
    public struct Handshake: Sendable, Equatable {
        /// The SNI name the client sent, or nil when it sent none.
        public var serverName: String?
        /// Whether the client resumed an earlier session instead of a full handshake.
        public var resumed: Bool
        /// The common name of the certificate the client presented, nil when it presented none.
        public var clientCertificateName: String?

        /// Creates a record (tests compare against expected handshakes).
        public init(serverName: String?, resumed: Bool, clientCertificateName: String? = nil) {
            self.serverName = serverName
            self.resumed = resumed
            self.clientCertificateName = clientCertificateName
        }
    }

    /// The HTTP server: routes, recorded requests, connection counts.
    public let http: LoopbackHTTPServer
    private let handshakeLog: HandshakeLog

    /// Starts a TLS server on 127.0.0.1 with an OS-chosen port.
    ///
    /// - Parameters:
    ///   - identity: The certificate chain and key to present.
    ///   - ticketAfterEachWrite: Send a TLS 1.3 session ticket after every response, so an idle
    ///     keep-alive socket becomes readable with nothing but TLS housekeeping on it.
    ///   - maxProtocolVersion: The newest TLS version offered (`TLS1_2_VERSION`, ...); nil for OpenSSL's newest.
    ///   - alpn: An ALPN protocol the server selects whatever the client offered (such as `h2`);
    ///     nil to select none.
    ///   - sendsCloseNotify: End each connection with a TLS close_notify, as a correct server
    ///     does; false closes the socket without one (a sloppy server, or an attacker cutting
    ///     the connection).
    ///   - clientCertificateAuthority: A fixture CA file (such as `client-ca.pem`): when given,
    ///     the server requires a client certificate issued by it (mutual TLS) and ends the
    ///     handshake with an alert otherwise.
    ///   - ipv6: Listen on `::1` instead of `127.0.0.1`.
    ///   - answersCONNECT: Act as a TLS-inspecting proxy: read an HTTP `CONNECT` request first,
    ///     answer `200`, then terminate the TLS that follows with `identity`.
    public init(
        identity: Identity, ticketAfterEachWrite: Bool = false, maxProtocolVersion: Int32? = nil,
        alpn: String? = nil, sendsCloseNotify: Bool = true, clientCertificateAuthority: String? = nil,
        ipv6: Bool = false, answersCONNECT: Bool = false
    ) throws {
        let context = try ServerTLSContext(
            identity: identity, maxProtocolVersion: maxProtocolVersion, alpn: alpn,
            clientCertificateAuthority: clientCertificateAuthority)
        let log = HandshakeLog()
        handshakeLog = log
        http = try LoopbackHTTPServer(ipv6: ipv6) { fd in
            if answersCONNECT, !ServerTLSChannel.answerCONNECT(on: fd, log: log) { return nil }
            return ServerTLSChannel(
                fd: fd, context: context, ticketAfterEachWrite: ticketAfterEachWrite,
                sendsCloseNotify: sendsCloseNotify, log: log)
        }
    }

    /// Starts a TLS server that hands each connection's decrypted channel to `session` (after
    /// the handshake) instead of reading HTTP/1.1 requests.
    public init(identity: Identity, alpn: String?, session: @escaping @Sendable (any LoopbackByteChannel) -> Void) throws {
        let context = try ServerTLSContext(identity: identity, maxProtocolVersion: nil, alpn: alpn)
        let log = HandshakeLog()
        handshakeLog = log
        http = try LoopbackHTTPServer(
            channel: { fd in
                ServerTLSChannel(fd: fd, context: context, ticketAfterEachWrite: false, sendsCloseNotify: true, log: log)
            }, session: session)
    }

    /// Every completed handshake so far, in order.
    public var handshakes: [Handshake] { handshakeLog.all }

    /// The request lines of the `CONNECT` requests answered (with `answersCONNECT`), in order.
    public var connectRequests: [String] { handshakeLog.connectRequests }

    /// The port the server listens on.
    public var port: Int { http.port }

    /// `https://<host>:<port><path>`; the fixture leaves name `localhost` and `127.0.0.1`.
    public func url(_ path: String, host: String = "localhost") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    /// The directory of the committed certificates and keys.
    public static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Pinning")
}

/// A failure to set up the server's TLS context.
public struct TLSServerSetupError: Error, CustomStringConvertible {
    /// What could not be set up.
    public let description: String
}

/// The server `SSL_CTX`, shared by every connection thread (SSL_new on a shared context is
/// thread-safe in OpenSSL; the mutex makes the sharing compiler-checked).
final class ServerTLSContext: Sendable {
    private let context: LockedValue<OpaquePointer>
    /// The ALPN selection in wire form (length byte, name), read by the C callback through its
    /// `arg`; allocated once, freed in deinit, never written after init. In the mutex only so the
    /// class stays checked `Sendable`.
    private let alpnWire: LockedValue<UnsafeMutableBufferPointer<UInt8>?>

    init(
        identity: TLSLoopbackServer.Identity, maxProtocolVersion: Int32?, alpn: String?,
        clientCertificateAuthority: String? = nil
    ) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSServerSetupError(description: "SSL_CTX_new") }
        alpnWire = LockedValue(nil)
        if let alpn {
            let address = alpnWire.withLock { stored -> UInt in
                let wire = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: alpn.utf8.count + 1)
                _ = wire.initialize(from: [UInt8(alpn.utf8.count)] + Array(alpn.utf8))
                stored = wire
                return UInt(bitPattern: wire.baseAddress)
            }
            // Selects our protocol even if the client did not offer it, as a misbehaving server would.
            SSL_CTX_set_alpn_select_cb(
                context,
                { _, out, outLength, _, _, arg in
                    guard let arg, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
                    let wire = arg.assumingMemoryBound(to: UInt8.self)
                    out.pointee = UnsafePointer(wire + 1)
                    outLength.pointee = wire[0]
                    return SSL_TLSEXT_ERR_OK
                }, UnsafeMutableRawPointer(bitPattern: address))
        }
        if let maxProtocolVersion {
            // Old versions need security level 0 in OpenSSL 3 to be offered at all.
            if maxProtocolVersion < TLS1_2_VERSION {
                SSL_CTX_set_security_level(context, 0)
                _ = strata_SSL_CTX_set_min_proto_version(context, maxProtocolVersion)
            }
            _ = strata_SSL_CTX_set_max_proto_version(context, maxProtocolVersion)
        }
        let chain = TLSLoopbackServer.fixtures.appendingPathComponent(identity.chainFile).path
        let key = TLSLoopbackServer.fixtures.appendingPathComponent(identity.keyFile).path
        guard SSL_CTX_use_certificate_chain_file(context, chain) == 1,
            SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
        else {
            SSL_CTX_free(context)
            throw TLSServerSetupError(description: "cannot load \(identity.chainFile) / \(identity.keyFile)")
        }
        if let clientCertificateAuthority {
            let file = TLSLoopbackServer.fixtures.appendingPathComponent(clientCertificateAuthority).path
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1, let names = SSL_load_client_CA_file(file) else {
                SSL_CTX_free(context)
                throw TLSServerSetupError(description: "cannot load the client CA \(clientCertificateAuthority)")
            }
            // The CertificateRequest names the CA; a missing certificate ends the handshake.
            SSL_CTX_set_client_CA_list(context, names)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        self.context = LockedValue(context)
    }

    deinit {
        context.withLock { SSL_CTX_free($0) }
        alpnWire.withLock { $0?.deallocate() }
    }

    func makeSSL() -> OpaquePointer? { context.withLock { SSL_new($0) } }
}

/// The handshakes a server completed, shared by its connection threads.
final class HandshakeLog: Sendable {
    private let entries = LockedValue<[TLSLoopbackServer.Handshake]>([])
    private let connects = LockedValue<[String]>([])
    func append(_ handshake: TLSLoopbackServer.Handshake) { entries.withLock { $0.append(handshake) } }
    var all: [TLSLoopbackServer.Handshake] { entries.withLock { $0 } }
    func appendCONNECT(_ line: String) { connects.withLock { $0.append(line) } }
    var connectRequests: [String] { connects.withLock { $0 } }
}

/// One server-side TLS session over an accepted blocking socket, through memory BIOs.
final class ServerTLSChannel: LoopbackByteChannel {
    private let fd: Int32
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    private let ticketAfterEachWrite: Bool
    private let sendsCloseNotify: Bool
    /// The common name of the client's certificate, read once the handshake is done.
    private(set) var peerCertificateName: String?
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Runs the handshake; nil when it fails (the client refused us, or spoke something else).
    init?(fd: Int32, context: ServerTLSContext, ticketAfterEachWrite: Bool, sendsCloseNotify: Bool, log: HandshakeLog) {
        guard let ssl = context.makeSSL() else { return nil }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_bio(ssl, input, output)
        SSL_set_accept_state(ssl)
        // Responses and session tickets are separate small writes: without this, Nagle holds the
        // second one for the client's delayed ACK (40 ms), as no real TLS server would.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.ssl = ssl
        self.input = input
        self.output = output
        self.ticketAfterEachWrite = ticketAfterEachWrite
        self.sendsCloseNotify = sendsCloseNotify
        while true {
            let result = SSL_do_handshake(ssl)
            flush()
            if result == 1 { break }
            guard SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ, fill() else {
                ERR_clear_error()
                Self.lingeringClose(fd)
                return nil
            }
        }
        let serverName = SSL_get_servername(ssl, Int32(TLSEXT_NAMETYPE_host_name)).map { String(cString: $0) }
        peerCertificateName = Self.clientCommonName(ssl)
        log.append(
            TLSLoopbackServer.Handshake(
                serverName: serverName, resumed: SSL_session_reused(ssl) == 1,
                clientCertificateName: peerCertificateName))
    }

    /// The common name of the client's certificate, nil when it sent none.
    private static func clientCommonName(_ ssl: OpaquePointer) -> String? {
        guard let certificate = SSL_get0_peer_certificate(ssl), let name = X509_get_subject_name(certificate) else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        guard X509_NAME_get_text_by_NID(name, NID_commonName, &buffer, Int32(buffer.count)) > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// After a failed handshake: stop sending (the alert is out) and read what the client still
    /// sends until it closes, so closing never resets the connection and destroys the alert
    /// before the client reads it (a client may write its request before the alert arrives).
    private static func lingeringClose(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sink = [UInt8](repeating: 0, count: 4096)
        while sink.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }

    /// Reads an HTTP `CONNECT` request head from `fd` (byte by byte, so nothing of the TLS that
    /// follows is consumed) and answers `200`; false when the client sent something else.
    static func answerCONNECT(on fd: Int32, log: HandshakeLog) -> Bool {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8), head.count < 16 * 1024 {
            guard recv(fd, &byte, 1, 0) == 1 else { return false }
            head.append(byte)
        }
        let line = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        guard line.hasPrefix("CONNECT ") else { return false }
        log.appendCONNECT(line)
        let answer = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
        #if canImport(Glibc)
        return answer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == answer.count
        #else
        return answer.withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) } == answer.count
        #endif
    }

    deinit { SSL_free(ssl) }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            if count > 0 { return Int(count) }
            guard SSL_get_error(ssl, count) == SSL_ERROR_WANT_READ else {
                ERR_clear_error()
                return 0
            }
            flush()
            guard fill() else { return 0 }
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = SSL_write(ssl, base + offset, Int32(min(bytes.count - offset, 32 * 1024)))
            guard written > 0 else {
                ERR_clear_error()
                return false
            }
            offset += Int(written)
            guard flush() else { return false }
        }
        if ticketAfterEachWrite, SSL_new_session_ticket(ssl) == 1 {
            // In OpenSSL 3 the ticket goes out on the next handshake step.
            _ = SSL_do_handshake(ssl)
            flush()
        }
        return true
    }

    /// Sends close_notify (RFC 8446 §6.1) unless the server was made sloppy.
    func finish() {
        guard sendsCloseNotify else { return }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        flush()
    }

    /// Sends what OpenSSL queued; false once the peer is gone.
    @discardableResult
    private func flush() -> Bool {
        while BIO_ctrl_pending(output) > 0 {
            let count = scratch.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return true }
            let sent = scratch.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < Int(count) {
                    #if canImport(Glibc)
                    let result = Glibc.send(fd, raw.baseAddress! + offset, Int(count) - offset, Int32(MSG_NOSIGNAL))
                    #else
                    let result = Darwin.send(fd, raw.baseAddress! + offset, Int(count) - offset, 0)
                    #endif
                    if result <= 0 { return false }
                    offset += result
                }
                return true
            }
            guard sent else { return false }
        }
        return true
    }

    /// Moves received ciphertext into OpenSSL; false at end of stream or on error.
    private func fill() -> Bool {
        var count: Int
        repeat { // a signal (the suite's children's SIGCHLD) interrupts a read; it is not the end
            count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        guard count > 0 else { return false }
        return scratch.withUnsafeBytes { BIO_write(input, $0.baseAddress, Int32(count)) } == Int32(count)
    }
}
