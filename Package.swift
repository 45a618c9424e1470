// swift-tools-version:6.0
import Foundation
import PackageDescription

// Content coding (StrataPinning/Compression): zlib is required (gzip, deflate); brotli (`br`) and
// zstd are used when their headers are installed (Debian libbrotli-dev, libzstd-dev), each adding
// its system-library target and a compilation condition, so a machine without them still builds
// and simply never offers those codings. STRATA_WITHOUT_BROTLI=1 / STRATA_WITHOUT_ZSTD=1 build
// without them anyway (to check that build).
func installedHeader(_ path: String) -> Bool {
    ["/usr/include", "/usr/local/include", "/opt/homebrew/include"].contains {
        FileManager.default.fileExists(atPath: "\($0)/\(path)")
    }
}
let environment = ProcessInfo.processInfo.environment
let brotli = environment["STRATA_WITHOUT_BROTLI"] == nil && installedHeader("brotli/decode.h")
let zstd = environment["STRATA_WITHOUT_ZSTD"] == nil && installedHeader("zstd.h")
let optionalCodings: [(name: String, define: String, target: Target)] =
    (brotli
        ? [
            (
                "CBrotli", "STRATA_BROTLI",
                .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])])
            )
        ] : [])
    + (zstd
        ? [
            (
                "CZstd", "STRATA_ZSTD",
                .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])])
            )
        ] : [])

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        .library(name: "StrataPinning", targets: ["StrataPinning"]),
        .library(name: "StrataRedis", targets: ["StrataRedis"]),
        .library(name: "StrataResilience", targets: ["StrataResilience"]),
        // The command-line tool: the guided tour, `get`, `pin` and `sandbox`. Stands on its own: its
        // sandbox makes a CA and a certificate in memory at startup, so the binary runs from anywhere.
        .executable(name: "strata-demo", targets: ["strata-demo"]),
    ],
    targets: [
        .target(name: "Strata"),
        .target(name: "StrataTesting", dependencies: ["Strata"]),
        // The layers production stacks add around retry: circuit breaker, concurrency limit, the
        // server's rate limits, hedged requests and a per-attempt timeout. Built only on
        // Transport, so a stack that needs none of them does not compile them.
        .target(name: "StrataResilience", dependencies: ["Strata"]),
        // System OpenSSL 3 (Debian: apt install libssl-dev); a module map and a macro shim only.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // System nghttp2 (Debian: apt install libnghttp2-dev): HTTP/2 framing, HPACK, flow control.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // System zlib (Debian: apt install zlib1g-dev): gzip and deflate content decoding.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The connection layer under every protocol (resolve -> race addresses -> socket, and the
        // thread each connection's blocking work runs on); knows no HTTP and no RESP. Shared by
        // StrataPinning and StrataRedis, not a product: its API is `package`.
        .target(name: "StrataConnect", dependencies: ["Strata"]),
        .target(
            name: "StrataPinning",
            dependencies: ["Strata", "StrataConnect", "COpenSSL", "CNGHTTP2", "CZlib"] + optionalCodings.map { .target(name: $0.name) },
            swiftSettings: optionalCodings.map { .define($0.define) }),
        // RedisETagStore and the small RESP2 client it needs (no Swift Redis package can be fetched).
        // It names StrataPinning's TLS vocabulary (TrustRoots, ClientIdentity, ServerTrustEvaluator)
        // for rediss:// and runs its TLS code.
        .target(name: "StrataRedis", dependencies: ["Strata", "StrataConnect", "StrataPinning"]),
        // Loopback HTTP server for this package's own tests; not a product.
        .target(name: "TestServer", dependencies: ["Strata", "CZlib"], path: "Tests/TestServer"),
        // The loopback server behind TLS (OpenSSL server side) with the committed fixture certificates.
        .target(name: "TLSTestServer", dependencies: ["COpenSSL", "TestServer", "TestSupport", "Strata"], path: "Tests/TLSTestServer"),
        // What every test target shares that is not a server: the wall-clock scale for sanitizer runs,
        // memory measurement, and waiting for a child process without spinning.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Swift Testing traits the test targets share (kept apart so the bench and the soak, which
        // use TestSupport, do not link Swift Testing).
        .target(name: "TestTraits", path: "Tests/TestTraits"),
        // The child process FileETagStoreKillTests kills with SIGKILL while it writes a store.
        .executableTarget(name: "etag-store-writer", dependencies: ["Strata", "TestServer"], path: "Tests/ETagStoreWriter"),
        // A real redis-server on a free port for StrataRedis tests and the store benchmark.
        .target(name: "RedisTestServer", dependencies: ["Strata", "TestServer", "TestSupport"], path: "Tests/RedisTestServer"),
        // A second process writing to the same Redis, for the concurrent-writers test.
        .executableTarget(name: "redis-store-writer", dependencies: ["StrataRedis", "Strata"], path: "Tests/RedisStoreWriter"),
        // What the layers and transports cost (strata-bench --help in Bench/strata-bench/main.swift);
        // CI builds it and runs a --quick pass that fails on errors, never on a figure.
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "Strata", "StrataPinning", "StrataRedis", "StrataResilience", "TestServer", "TLSTestServer",
                "RedisTestServer", "TestSupport", "CAllocationCounter",
            ], path: "Bench/strata-bench"),
        // Counts heap allocations for strata-bench by defining malloc and friends (the bench only).
        .target(name: "CAllocationCounter", path: "Bench/CAllocationCounter"),
        // The recommended stack under injected faults (scripts/soak.sh); CI runs its --quick form.
        .executableTarget(
            name: "strata-soak", dependencies: ["Strata", "StrataPinning", "TestServer", "TLSTestServer"], path: "Bench/strata-soak"),
        // The demo's sandbox: a loopback HTTP/1.1 server (OpenSSL server side, every C call in its
        // OpenSSL/ folder) and a CA + leaf generated in memory. Tests may use it; it uses no test target.
        .target(name: "StrataSandbox", dependencies: ["Strata", "COpenSSL"], path: "Demo/StrataSandbox"),
        // The demo's logic (commands, tour, output), testable; the executable only calls it.
        .target(
            name: "StrataDemoKit", dependencies: ["Strata", "StrataPinning", "StrataResilience", "StrataSandbox"],
            path: "Demo/StrataDemoKit"),
        .executableTarget(name: "strata-demo", dependencies: ["StrataDemoKit"], path: "Demo/strata-demo"),
        // Depends on etag-store-writer so `swift test` builds the child its kill test runs.
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataTesting", "TestServer", "TestSupport", "TestTraits", "TLSTestServer", "etag-store-writer"]),
        .testTarget(name: "StrataTestingTests", dependencies: ["Strata", "StrataTesting"]),
        .testTarget(
            name: "StrataResilienceTests",
            dependencies: ["StrataResilience", "Strata", "StrataTesting", "TestServer", "TestSupport", "TestTraits"]),
        // Certificates and keys live in Tests/Fixtures/Pinning and are read via #filePath.
        .testTarget(name: "StrataConnectTests", dependencies: ["StrataConnect", "Strata", "TestSupport"]),
        .testTarget(
            name: "StrataPinningTests",
            dependencies: [
                "StrataPinning", "StrataConnect", "Strata", "StrataTesting", "COpenSSL", "CZlib", "TestServer", "TLSTestServer",
                "TestSupport", "TestTraits",
            ]),
        .testTarget(name: "StrataSandboxTests", dependencies: ["StrataSandbox", "StrataPinning", "Strata", "COpenSSL", "TestSupport"]),
        // Depends on the executable so `swift test` builds the binary its subprocess tests run.
        .testTarget(
            name: "StrataDemoTests",
            dependencies: [
                "StrataDemoKit", "StrataSandbox", "Strata", "StrataPinning", "StrataResilience", "strata-demo",
                "TestServer", "TLSTestServer", "TestSupport", "TestTraits",
            ]),
        // Needs redis-server (Debian: apt install redis-server); skipped with a message without it.
        .testTarget(
            name: "StrataRedisTests",
            dependencies: [
                "StrataRedis", "Strata", "StrataTesting", "TestServer",
                "RedisTestServer", "redis-store-writer", "TestSupport", "TestTraits",
            ]),
    ] + optionalCodings.map(\.target),
    swiftLanguageModes: [.v6]
)
