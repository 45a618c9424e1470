// Fuzz target `certificate` (scripts/fuzz.sh): Certificate's DER (OpenSSL's d2i_X509 behind
// Strata's wrapper) and PEM parsing, compiled into StrataPinning.
//
// Input: byte 0's low bit picks DER or PEM, the rest is the document. Properties checked on
// every input:
// 1. Parsing never crashes, and every OpenSSL object is freed (LeakSanitizer runs at exit and
//    libFuzzer checks for leaks while it fuzzes).
// 2. A certificate keeps exactly the bytes it was read from (trailing bytes are refused).
// 3. Round trip: its DER, and its DER written as PEM, parse to an equal certificate with the same
//    pin, subject, issuer and validity.
import Foundation

private func pem(_ der: Data) -> String {
    let base64 = Array(der.base64EncodedString())
    let lines = stride(from: 0, to: base64.count, by: 64).map { String(base64[$0..<min($0 + 64, base64.count)]) }
    return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
}

private func sameFacts(_ a: Certificate, _ b: Certificate) -> Bool {
    a == b && a.publicKeyPin == b.publicKeyPin && a.subject == b.subject && a.issuer == b.issuer
        && a.notBefore == b.notBefore && a.notAfter == b.notAfter
}

private func checkRoundTrip(_ certificate: Certificate) {
    let fromDER = try? Certificate(der: certificate.der)
    fuzzCheck(
        fromDER.map { sameFacts($0, certificate) } == true, "re-reading the DER of \(certificate) differs: \(String(describing: fromDER))")
    let fromPEM = try? Certificate(pem: pem(certificate.der))
    fuzzCheck(
        fromPEM.map { sameFacts($0, certificate) } == true, "re-reading the PEM of \(certificate) differs: \(String(describing: fromPEM))")
}

func fuzz(_ input: inout FuzzInput) {
    let asPEM = input.byte() & 1 == 1
    let document = input.rest()
    if asPEM {
        guard let certificates = try? Certificate.certificates(pemBundle: String(decoding: document, as: UTF8.self)) else { return }
        certificates.forEach(checkRoundTrip)
    } else {
        guard let certificate = try? Certificate(der: Data(document)) else { return }
        fuzzCheck(certificate.der == Data(document), "\(certificate) keeps other bytes than it was read from")
        checkRoundTrip(certificate)
    }
}
