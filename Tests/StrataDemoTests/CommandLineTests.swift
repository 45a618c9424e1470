import Foundation
@testable import StrataDemoKit
import StrataPinning
import Testing

@Suite("strata-demo command line")
struct CommandLineTests {
    private static func parse(_ arguments: [String]) throws -> DemoCommand {
        try DemoCommand.parse(arguments, output: CapturedOutput().output)
    }

    @Test("no arguments, 'tour' and '--verbose' run the tour")
    func tourForms() throws {
        for (arguments, verbose) in [([String](), false), (["tour"], false), (["--verbose"], true), (["tour", "-v"], true)] {
            guard case .tour(let parsed) = try Self.parse(arguments) else {
                Issue.record("\(arguments) did not parse as the tour")
                continue
            }
            #expect(parsed == verbose)
        }
    }

    @Test("--help anywhere shows the help of the command it follows; 'help <command>' does too")
    func helpTopics() throws {
        guard case .help(let overview) = try Self.parse(["--help"]),
            case .help(let getHelp) = try Self.parse(["get", "https://example.com", "--bogus", "-h"]),
            case .help(let pinHelp) = try Self.parse(["help", "pin"])
        else {
            Issue.record("a help request did not parse as help")
            return
        }
        #expect(overview == HelpText.overview)
        #expect(getHelp == GetCommand.spec.helpText)
        #expect(pinHelp == PinCommand.spec.helpText)
    }

    @Test("get reads every option: repeated pins and headers, curl's short forms, --data @file, numbers")
    func getOptions() throws {
        let pin = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let backup = "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA="
        guard
            case .get(let options) = try Self.parse([
                "get", "https://api.example.com/v1/items?page=2", "--pin", pin, "--pin=\(backup)", "--ca", "ca.pem",
                "-H", "Accept: application/json", "-HX-Trace: 1", "-XPUT", "--data", "@body.json", "--token", "t0k3n",
                "--etag-dir", "etags", "--retries", "0", "--timeout", "2.5", "-o", "out.json", "--json-events", "-v", "-i",
            ])
        else {
            Issue.record("get did not parse")
            return
        }
        #expect(options.url.absoluteString == "https://api.example.com/v1/items?page=2")
        #expect(options.pins == [try SPKIPin(pin), try SPKIPin(backup)])
        #expect(options.caFile == "ca.pem")
        #expect(options.headers.map { "\($0.name): \($0.value)" } == ["Accept: application/json", "X-Trace: 1"])
        #expect(options.method.rawValue == "PUT")
        #expect(options.body == .file("body.json"))
        #expect(options.requestHeaders["Authorization"] == "Bearer t0k3n")
        #expect(options.etagDirectory == "etags")
        #expect(options.retries == 0)
        #expect(options.timeout == .milliseconds(2_500))
        #expect(options.outputFile == "out.json")
        #expect(options.jsonEvents && options.verbose && options.includeHead)
    }

    @Test("get's method is GET, or POST when a body is given, as curl does")
    func defaultMethods() throws {
        guard case .get(let plain) = try Self.parse(["get", "http://localhost/"]),
            case .get(let posting) = try Self.parse(["get", "http://localhost/", "-d", "a=1"])
        else {
            Issue.record("get did not parse")
            return
        }
        #expect(plain.method == .get && plain.body == nil && plain.retries == 2 && plain.timeout == nil)
        #expect(posting.method == .post && posting.body == .text("a=1"))
    }

    @Test(
        "each malformed command line is refused with a message saying what is wrong, its usage and its help",
        arguments: [
            (["--bogus"], "Unknown option '--bogus'.", "tour"),
            (["tour", "extra"], "Unexpected argument 'extra'.", "tour"),
            (["get"], "Missing expected argument '<url>'.", "get"),
            (["get", "example.com/path"], "'example.com/path' is not an http or https URL; write it as https://host[:port]/path.", "get"),
            (
                ["get", "ftp://example.com/"], "'ftp://example.com/' is not an http or https URL; write it as https://host[:port]/path.",
                "get"
            ),
            (
                ["get", "https://a.example/", "--pin", "sha256/AAAA"],
                "Malformed pin 'sha256/AAAA': decodes to 3 bytes; a SHA-256 pin is 32 bytes.", "get"
            ),
            (
                ["get", "http://a.example/", "--pin", "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="],
                "--pin needs an https URL: a pinned host is never contacted in cleartext.", "get"
            ),
            (["get", "https://a.example/", "-H", "NoColon"], "-H '<redacted>' has no ':'; write a header as 'Name: value'.", "get"),
            (
                ["get", "https://a.example/", "-H", "Authorization Bearer s3cr3t"],
                "-H 'Authorization <redacted>' has no ':'; write a header as 'Name: value'.", "get"
            ),
            (
                ["get", "ftp://alice:s3cr3t@files.example/"],
                "'ftp://<redacted>@files.example/' is not an http or https URL; write it as https://host[:port]/path.", "get"
            ),
            (
                ["get", "https://alice:s3cr3t"],
                "'https://alice:<redacted>' is not an http or https URL; write it as https://host[:port]/path.", "get"
            ),
            (["get", "https://a.example/", "--token", "@"], "Write --token @<file> with a file name after '@'.", "get"),
            (["get", "https://a.example/", "--retries", "many"], "--retries takes a whole number from 0 to 10, not 'many'.", "get"),
            (
                ["get", "https://a.example/", "--timeout", "0"],
                "--timeout takes seconds, more than 0 and at most 86400, not '0'.", "get"
            ),
            (["get", "https://a.example/", "--timeout", "1", "--timeout", "2"], "The option '--timeout' may be given only once.", "get"),
            (["get", "https://a.example/", "--ca"], "Missing value for '--ca <file>'.", "get"),
            (["get", "https://a.example/", "--ca", "--json-events"], "Missing value for '--ca <file>'.", "get"),
            (["get", "https://a.example/", "--json-events=yes"], "The flag '--json-events' takes no value.", "get"),
            (
                ["get", "https://a.example/", "-X", "GET POST"],
                "'GET POST' is not an HTTP method; use a token such as GET, POST or PUT.", "get"
            ),
            (["pin"], "Missing expected argument '<host>[:port]'.", "pin"),
            (["pin", "a.example", "b.example"], "Unexpected argument 'b.example'; give one host, or --cert for files.", "pin"),
            (["pin", "--cert"], "Missing expected argument '<file>...'.", "pin"),
            (["pin", "--cert", "a.pem", "--ca", "ca.pem"], "--ca applies to a host; --cert reads files only.", "pin"),
            (["pin", "a.example:0"], "The port must be a number from 1 to 65535, not '0'.", "pin"),
            (["pin", "https://a.example/"], "Expected <host>[:port], not a URL: 'https://a.example/'.", "pin"),
            (["pin", "::1"], "Write an IPv6 address in brackets, such as '[::1]:443': '::1'.", "pin"),
            (["sandbox", "--port", "http"], "--port takes a number from 1 to 65535, not 'http'.", "sandbox"),
            (["sandbox", "now"], "Unexpected argument 'now'.", "sandbox"),
        ])
    func usageErrors(arguments: [String], message: String, command: String) async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(arguments, output: captured.output)
        let spec = DemoCommand.specs.first { $0.name == command }
        #expect(status == 64)
        #expect(captured.standard.isEmpty)
        #expect(
            captured.error == """
                Error: \(message)
                \(spec?.usageText ?? "")
                  See 'strata-demo \(command) --help' for more information.
                """)
    }

    @Test("an unknown command is refused with every command's usage")
    func unknownCommand() async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["frobnicate"], output: captured.output)
        #expect(status == 64)
        #expect(
            captured.error == """
                Error: Unknown command 'frobnicate'; the commands are tour, get, pin and sandbox.
                \(HelpText.usage)
                  See 'strata-demo --help' for more information.
                """)
    }

    @Test("every command's help lists its usage and every option, and exits 0")
    func helpTexts() async {
        for spec in DemoCommand.specs {
            let captured = CapturedOutput()
            let status = await StrataDemo.run([spec.name, "--help"], output: captured.output)
            #expect(status == 0)
            #expect(captured.standard.contains(spec.usageText))
            for option in spec.options { #expect(captured.standard.contains(option.synopsis)) }
            #expect(captured.standard.contains("-h, --help"))
            #expect(captured.error.isEmpty)
        }
    }
}
