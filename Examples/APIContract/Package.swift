// swift-tools-version:6.0
// A consumer of Strata, compiled by CI: it spells the public names of
// ../shared/design/api.md exactly as users do, so renaming one breaks the build.
import PackageDescription

let package = Package(
    name: "APIContract",
    dependencies: [.package(name: "Strata", path: "../..")],
    targets: [
        .target(name: "APIContract", dependencies: [
            .product(name: "Strata", package: "Strata"),
            .product(name: "StrataTesting", package: "Strata"),
            .product(name: "StrataPinning", package: "Strata"),
            .product(name: "StrataRedis", package: "Strata"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
