#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Foundation
@testable import StrataPinning
import Testing

@Suite("System trust anchors come from OpenSSL's compiled-in paths, never the environment", .serialized)
struct TrustStoreEnvironmentTests {
    @Test("the system paths are OpenSSL's defaults, whatever SSL_CERT_FILE says")
    func pathsIgnoreEnvironment() throws {
        try withEnvironment(["SSL_CERT_FILE": "/nonexistent/ca.pem", "SSL_CERT_DIR": "/nonexistent"]) {
            #expect(X509TrustStore.systemPaths.file == String(cString: X509_get_default_cert_file()))
            #expect(X509TrustStore.systemPaths.file != "/nonexistent/ca.pem")
            #expect(X509TrustStore.systemPaths.directory != "/nonexistent")
        }
    }

    @Test("SSL_CERT_FILE naming a private CA does not make .system trust that CA")
    func environmentCannotAddAnchors() throws {
        let leaf = try Fixtures.certificate("leaf-ec")
        let privateCA = Fixtures.directory.appendingPathComponent("ca.pem").path
        try withEnvironment(["SSL_CERT_FILE": privateCA, "SSL_CERT_DIR": "/nonexistent"]) {
            let verifier = try X509ChainVerifier(roots: .system)
            #expect(throws: ServerTrustError.self) { try verifier.verify([leaf], host: "localhost") }
        }
        // The same leaf does verify against the private CA given explicitly.
        #expect(try X509ChainVerifier(roots: Pinning.privateCA()).verify([leaf], host: "localhost").count == 2)
    }

    /// Runs `body` with `variables` set, restoring the previous values (the environment is
    /// process-wide, hence the serialized suite and the short window).
    private func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) throws {
        let saved = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try body()
    }
}
