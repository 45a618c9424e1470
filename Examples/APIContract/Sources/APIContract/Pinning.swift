#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

// StrataPinning names from api.md.

struct AllowAll: ServerTrustEvaluator {
    func evaluate(_ chain: [Certificate], forHost host: String) throws {}
}

func pinningContract(pem: String, der: Data) throws {
    let certificate = try Certificate(pem: pem)
    let same = try Certificate(der: der)
    let _: Data = certificate.der
    let _: String = certificate.spkiPin
    let _: String = certificate.subject
    _ = certificate == same

    let keyPins = try PublicKeyPinningEvaluator(pins: [certificate.spkiPin])
    let certificatePins = CertificatePinningEvaluator(certificates: [certificate])
    try keyPins.evaluate([certificate], forHost: "api.example.com")
    let roots: [TrustRoots] = [.system, .certificates([certificate])]
    _ = roots

    let domains: [String: any ServerTrustEvaluator] = [
        "api.example.com": keyPins, "*.example.com": certificatePins, "**.example.org": AllowAll(),
    ]
    let transport: any Transport = PinningTransport(inner: URLSessionTransport(), pinnedDomains: domains,
                                                    trustRoots: .system)
    _ = PinningTransport(pinnedDomains: domains)
    _ = PinningTransport(pinnedDomains: domains, trustRoots: .certificates([certificate]))
    _ = transport
}
