import Foundation
@testable import StrataDemoKit
import Testing

@Suite("strata-demo output: colour, NO_COLOR, progress line")
struct OutputTests {
    static let certificate = PinCommandTests.fixture("leaf-ec.pem")

    private static func pinOutput(terminal: Terminal) async -> CapturedOutput {
        let captured = CapturedOutput()
        var output = captured.output
        output.terminal = terminal
        _ = await StrataDemo.run(["pin", "--cert", certificate], output: output)
        return captured
    }

    @Test("NO_COLOR counts when set to a non-empty value (no-color.org)")
    func noColorVariable() {
        #expect(Terminal.current(environment: ["NO_COLOR": "1"]).noColor)
        #expect(!Terminal.current(environment: ["NO_COLOR": ""]).noColor)
        #expect(!Terminal.current(environment: [:]).noColor)
    }

    @Test("on a terminal the pin is green; with NO_COLOR, or through a pipe, no escape sequence is written")
    func colourOnlyOnATerminal() async {
        let colour = await Self.pinOutput(terminal: Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: false))
        #expect(colour.standard.hasPrefix("\u{1B}[32msha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=\u{1B}[0m: "))
        let noColor = await Self.pinOutput(terminal: Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: true))
        let piped = await Self.pinOutput(terminal: .none)
        for captured in [noColor, piped] {
            #expect(captured.standard.hasPrefix("sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI=: "))
            #expect(!captured.standard.contains("\u{1B}") && !captured.error.contains("\u{1B}"))
        }
    }

    @Test("a usage error's 'Error:' is red only when standard error is a terminal")
    func errorPrefix() async {
        let captured = CapturedOutput()
        var output = captured.output
        output.terminal = Terminal(outputIsTerminal: false, errorIsTerminal: true, noColor: false)
        #expect(await StrataDemo.run(["get"], output: output) == 64)
        #expect(captured.error.hasPrefix("\u{1B}[31mError:\u{1B}[0m Missing expected argument '<url>'."))
    }

    @Test("the progress line redraws in place: spinner, label, then the bytes received, of the total when known, and the rate")
    func progressRendering() {
        let line = ProgressLine(
            label: "GET https://localhost:8443/v1/export", output: CapturedOutput().output,
            progress: DownloadProgress())
        #expect(
            line.render(received: 0, total: nil, elapsed: .milliseconds(1_250), frame: 0)
                == "\r\u{1B}[K⠋ GET https://localhost:8443/v1/export  1.2 s")
        #expect(line.render(received: 0, total: nil, elapsed: .seconds(12), frame: 11).hasPrefix("\r\u{1B}[K⠙ "))
        #expect(
            line.render(received: 3 << 20, total: 12 << 20, elapsed: .seconds(2), frame: 0)
                == "\r\u{1B}[K⠋ GET https://localhost:8443/v1/export  3.0 MiB of 12.0 MiB (25%)  1.5 MiB/s")
        #expect(
            line.render(received: 1536, total: nil, elapsed: .seconds(1), frame: 0)
                == "\r\u{1B}[K⠋ GET https://localhost:8443/v1/export  1.5 KiB  1.5 KiB/s")
        #expect(ProgressLine.bytes(512) == "512 B")
        #expect(ProgressLine.bytes(5 << 30) == "5.0 GiB")
    }

    @Test("a response that arrives before the progress line is due draws nothing at all")
    func quickResponseDrawsNothing() async {
        let captured = CapturedOutput()
        let progress = Task { await ProgressLine(label: "GET /", output: captured.output, progress: DownloadProgress()).run() }
        progress.cancel()
        await progress.value
        #expect(captured.error.isEmpty)
    }
}
