// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
    ],
    targets: [
        .target(name: "Strata"),
        .target(name: "StrataTesting", dependencies: ["Strata"]),
        .target(name: "StrataPinning", dependencies: ["Strata"]),
        // Loopback HTTP server for this package's own tests; not a product.
        .target(name: "TestServer", path: "Tests/TestServer"),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataTesting", "TestServer"]),
        .testTarget(name: "StrataTestingTests", dependencies: ["Strata", "StrataTesting"]),
        .testTarget(name: "StrataPinningTests", dependencies: ["StrataPinning", "Strata", "TestServer"]),
    ],
    swiftLanguageModes: [.v6]
)
