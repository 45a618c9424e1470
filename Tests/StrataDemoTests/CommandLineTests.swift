@testable import StrataDemoKit
import Testing

@Suite("strata-demo command line")
struct CommandLineTests {
    @Test("no arguments, 'tour' and '--verbose' run the tour")
    func tourForms() throws {
        #expect(try DemoCommand.parse([]) == .tour(verbose: false))
        #expect(try DemoCommand.parse(["tour"]) == .tour(verbose: false))
        #expect(try DemoCommand.parse(["--verbose"]) == .tour(verbose: true))
        #expect(try DemoCommand.parse(["tour", "-v"]) == .tour(verbose: true))
    }

    @Test("--help wins wherever it appears")
    func help() throws {
        #expect(try DemoCommand.parse(["--help"]) == .help)
        #expect(try DemoCommand.parse(["pin", "example.com", "-h"]) == .help)
        #expect(try DemoCommand.parse(["tour", "--bogus", "--help"]) == .help)
    }

    @Test("pin takes host, host:port, a bracketed IPv6 literal and --ca in either spelling")
    func pinForms() throws {
        #expect(try DemoCommand.parse(["pin", "example.com"]) == .pin(PinTarget(host: "example.com", port: 443), caFile: nil))
        #expect(try DemoCommand.parse(["pin", "localhost:8443", "--ca", "ca.pem"])
            == .pin(PinTarget(host: "localhost", port: 8443), caFile: "ca.pem"))
        #expect(try DemoCommand.parse(["pin", "--ca=ca.pem", "[::1]:9443"])
            == .pin(PinTarget(host: "::1", port: 9443), caFile: "ca.pem"))
        #expect(PinTarget(host: "::1", port: 9443).description == "[::1]:9443")
    }

    @Test("each malformed command line is refused with a message saying what is wrong", arguments: [
        (["--bogus"], "Unknown option '--bogus'."),
        (["tour", "extra"], "Unexpected argument 'extra'."),
        (["frobnicate"], "Unknown command 'frobnicate'; the commands are 'tour' and 'pin'."),
        (["pin"], "Missing expected argument '<host>[:port]'."),
        (["pin", "a.example", "b.example"], "Unexpected argument 'b.example'."),
        (["pin", "a.example", "--ca"], "Missing value for '--ca <pem-file>'."),
        (["pin", "a.example", "--verbose"], "Unknown option '--verbose'."),
        (["pin", "a.example:0"], "The port must be a number from 1 to 65535, not '0'."),
        (["pin", "a.example:https"], "The port must be a number from 1 to 65535, not 'https'."),
        (["pin", "https://a.example/"], "Expected <host>[:port], not a URL: 'https://a.example/'."),
        (["pin", "::1"], "Write an IPv6 address in brackets, such as '[::1]:443': '::1'."),
        (["pin", ":443"], "Missing host in ':443'."),
    ])
    func usageErrors(arguments: [String], message: String) async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(arguments, output: captured.output)
        #expect(status == 64)
        #expect(captured.standard.isEmpty)
        #expect(captured.error == """
            Error: \(message)
            Usage: strata-demo [tour] [--verbose]
                   strata-demo pin <host>[:port] [--ca <pem-file>]
              See 'strata-demo --help' for more information.
            """)
    }

    @Test("--help prints the usage and every command and option as sentences, and exits 0")
    func helpText() async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["--help"], output: captured.output)
        #expect(status == 0)
        for expected in ["Usage: strata-demo [tour] [--verbose]", "pin <host>[:port]", "--verbose", "--ca <pem-file>",
                         "Shows this help."] {
            #expect(captured.standard.contains(expected))
        }
        #expect(captured.error.isEmpty)
    }
}
