#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

/// The probe behind `strata-demo pin <host>[:port]`: one TLS connection through
/// `PinningTransport`, whose chain verification runs as for any pinned request, and the verified
/// chain it saw.
struct PinProbe {
    /// How long connecting and the handshake may each take; a real host should answer within it.
    static let timeout: Duration = .seconds(10)

    let target: PinTarget
    let caFile: String?

    /// Connects, lets OpenSSL verify the chain and host name, and returns the verified chain.
    ///
    /// - Returns: The verified chain, leaf first, ending at the trust anchor.
    /// - Throws: ``PinProbeError`` saying what failed: the CA file, DNS, the connection, or
    ///   the certificate checks.
    func verifiedChain() async throws(PinProbeError) -> [Certificate] {
        let roots = try trustRoots()
        let recorder = ChainRecorder()
        let transport: PinningTransport
        do {
            transport = try PinningTransport.validated(
                pinnedDomains: [target.host: recorder], trustRoots: roots,
                configuration: .init(
                    connectTimeout: Self.timeout, handshakeTimeout: Self.timeout,
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
            throw PinProbeError(target: target, failure: error, usedCA: caFile != nil)
        }
        // The recorder throws, so a response means the request bypassed it.
        throw .configuration(target: target, reason: "the request was not pinned")
    }

    private func trustRoots() throws(PinProbeError) -> TrustRoots {
        guard let caFile else { return .system }
        do { return .certificates(try CertificateFile.read(caFile)) } catch { throw .unreadableCA(error) }
    }
}
