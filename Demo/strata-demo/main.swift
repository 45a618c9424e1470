// strata-demo: a guided tour of Strata against a sandbox HTTPS API it starts on 127.0.0.1,
// and a tool that prints a server's public-key pins. `swift run strata-demo --help`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrataDemoKit

exit(await StrataDemo.run(Array(CommandLine.arguments.dropFirst())))
