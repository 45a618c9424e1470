import Foundation
@testable import StrataPinning

/// The committed certificates of Tests/Fixtures/Pinning (made by make-fixtures.sh).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath) // Tests/StrataPinningTests/Support/Fixtures.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Pinning")

    /// Known answers from `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der |
    /// openssl dgst -sha256 -binary | base64` (see pins.txt).
    enum Pin {
        static let ca = "sha256/yIxaZTUrxHs5GSGHHlTW6UJ9tDef4/z+FjTuIAhRM1I="
        static let intermediate = "sha256/5Xs1K3Xh32Soxmo5iX33CZuqFaYaEcRBb1W6Ivbouns="
        static let leafEC = "sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI="
        static let leafRSA = "sha256//oQrPGETQozucS5VIsq/VcVzWdk3I+DI8YLOxLrxBgQ="
        static let leafViaIntermediate = "sha256/SXhunlb4Skq04pVBZtV/ke2QTEiKHg4HDYzyOatcyNc="
        static let attackerCA = "sha256/qxT8rj7/8F8WvKy4IMt//fsnmeQADrihx7WX0JhV8Xg="
        static let attackerLeaf = "sha256/iD3yasrKC+2OZbT7h6i6ZyZywkvVz2Nq9+X3mWuV3/E="
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pem: text("\(name).pem"))
    }

    static func bundle(_ name: String) throws -> [Certificate] {
        try Certificate.certificates(pemBundle: text("\(name).pem"))
    }
}
