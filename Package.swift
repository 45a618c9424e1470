// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        .library(name: "StrataPinning", targets: ["StrataPinning"]),
        // The guided tour: `swift run strata-demo` (needs this checkout's Tests/Fixtures/Pinning).
        .executable(name: "strata-demo", targets: ["strata-demo"]),
    ],
    targets: [
        .target(name: "Strata"),
        .target(name: "StrataTesting", dependencies: ["Strata"]),
        // System OpenSSL 3 (Debian: apt install libssl-dev); a module map and a macro shim only.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // System nghttp2 (Debian: apt install libnghttp2-dev): HTTP/2 framing, HPACK, flow control.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .target(name: "StrataPinning", dependencies: ["Strata", "COpenSSL", "CNGHTTP2"]),
        // Loopback HTTP server for this package's own tests; not a product.
        .target(name: "TestServer", dependencies: ["Strata"], path: "Tests/TestServer"),
        // The loopback server behind TLS (OpenSSL server side) with the committed fixture certificates.
        .target(name: "TLSTestServer", dependencies: ["COpenSSL", "TestServer", "Strata"], path: "Tests/TLSTestServer"),
        // Loopback throughput of PinningTransport vs URLSessionTransport; built by CI, run by hand.
        .executableTarget(name: "strata-bench", dependencies: ["Strata", "StrataPinning", "TestServer", "TLSTestServer"], path: "Bench/strata-bench"),
        // The demo's logic (tour, sandbox, pin command), testable; the executable only calls it.
        .target(name: "StrataDemoKit", dependencies: ["Strata", "StrataPinning", "TestServer", "TLSTestServer"],
                path: "Demo/StrataDemoKit"),
        .executableTarget(name: "strata-demo", dependencies: ["StrataDemoKit"], path: "Demo/strata-demo"),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataTesting", "TestServer"]),
        .testTarget(name: "StrataTestingTests", dependencies: ["Strata", "StrataTesting"]),
        // Certificates and keys live in Tests/Fixtures/Pinning and are read via #filePath.
        .testTarget(name: "StrataPinningTests", dependencies: ["StrataPinning", "Strata", "StrataTesting", "COpenSSL", "TestServer", "TLSTestServer"]),
        .testTarget(name: "StrataDemoTests", dependencies: ["StrataDemoKit", "TestServer"]),
    ],
    swiftLanguageModes: [.v6]
)
