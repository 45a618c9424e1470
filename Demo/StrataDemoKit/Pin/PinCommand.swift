#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

/// `strata-demo pin <host>[:port] [--ca <pem-file>]`: one TLS connection through
/// `PinningTransport`, whose chain verification runs as for any pinned request, and the verified
/// chain it saw.
struct PinCommand {
    /// How long connecting and the handshake may each take; a real host should answer within it.
    static let timeout: Duration = .seconds(10)

    let target: PinTarget
    let caFile: String?

    /// Connects, lets OpenSSL verify the chain and host name, and returns the verified chain.
    ///
    /// - Returns: The verified chain, leaf first, ending at the trust anchor.
    /// - Throws: ``PinCommandError`` saying what failed: the CA file, DNS, the connection, or
    ///   the certificate checks.
    func verifiedChain() async throws(PinCommandError) -> [Certificate] {
        let roots = try trustRoots()
        let recorder = ChainRecorder()
        let transport: PinningTransport
        do {
            transport = try PinningTransport.validated(
                pinnedDomains: [target.host: recorder], trustRoots: roots,
                configuration: .init(connectTimeout: Self.timeout, handshakeTimeout: Self.timeout,
                                     requestTimeout: Self.timeout))
        } catch {
            throw .configuration(target: target, reason: error.description)
        }
        guard let url = URL(string: "https://\(target.authority)/") else {
            throw .configuration(target: target, reason: "it does not form a URL")
        }
        do {
            _ = try await transport.send(URLRequest(url: url))
        } catch {
            if let chain = recorder.chain { return chain }
            throw PinCommandError(target: target, failure: error, usedCA: caFile != nil)
        }
        // The recorder throws, so a response means the request bypassed it.
        throw .configuration(target: target, reason: "the request was not pinned")
    }

    private func trustRoots() throws(PinCommandError) -> TrustRoots {
        guard let caFile else { return .system }
        guard FileManager.default.isReadableFile(atPath: caFile),
              let text = try? String(contentsOfFile: caFile, encoding: .utf8) else {
            throw .unreadableCA(path: caFile, reason: "no readable UTF-8 text file is there")
        }
        do {
            return .certificates(try Certificate.certificates(pemBundle: text))
        } catch {
            throw .unreadableCA(path: caFile, reason: error.description)
        }
    }
}
