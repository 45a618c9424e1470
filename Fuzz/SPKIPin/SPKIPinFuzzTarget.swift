// Fuzz target `spki-pin` (scripts/fuzz.sh): SPKIPin's text forms, compiled into StrataPinning.
//
// Input: the pin text. Properties checked on every input:
// 1. Parsing never crashes; a refusal has a description (it is what a person reads).
// 2. An accepted pin holds exactly 32 digest bytes.
// 3. Round trip: both written forms (`sha256/…` and RFC 7469's `pin-sha256="…"`) parse back to
//    an equal pin, and the digest bytes alone make an equal pin.
import Foundation

func fuzz(_ input: inout FuzzInput) {
    let text = String(decoding: input.rest(), as: UTF8.self)
    let pin: SPKIPin
    do {
        pin = try SPKIPin(text)
    } catch {
        fuzzCheck(!error.description.isEmpty, "refusing '\(text)' gave an empty description")
        return
    }
    fuzzCheck(pin.sha256.count == SPKIPin.digestLength, "'\(text)' gave \(pin.sha256.count) digest bytes")
    fuzzCheck((try? SPKIPin(pin.description)) == pin, "'\(text)' written as '\(pin.description)' does not parse back")
    fuzzCheck((try? SPKIPin(pin.rfc7469)) == pin, "'\(text)' written as '\(pin.rfc7469)' does not parse back")
    fuzzCheck(SPKIPin(sha256Digest: pin.sha256) == pin, "'\(text)': its digest does not make the same pin")
}
