// swift-tools-version:6.0
// A consumer of Strata, compiled by CI: APIContract spells the public names of
// ../shared/design/api.md exactly as users do, so renaming one breaks the build; ReadmeSnippets
// holds every Swift block of the README and docs/, written there by scripts/readme-snippets.sh.
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
        .target(name: "ReadmeSnippets", dependencies: [
            "Logging",
            .product(name: "Strata", package: "Strata"),
            .product(name: "StrataTesting", package: "Strata"),
            .product(name: "StrataPinning", package: "Strata"),
            .product(name: "StrataRedis", package: "Strata"),
            .product(name: "StrataResilience", package: "Strata"),
        ]),
        // The few names of swift-log the README's bridge uses, so that block compiles here
        // (no package outside the toolchain can be fetched).
        .target(name: "Logging"),
    ],
    swiftLanguageModes: [.v6]
)
