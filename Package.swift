// swift-tools-version:6.0
// Sluice: a WebRTC SFU. Module map and layering: see README.md ("Architecture").
import PackageDescription

let cLibraries: [Target] = [
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
    .systemLibrary(name: "CUsrsctp", pkgConfig: "usrsctp", providers: [.apt(["libusrsctp-dev"])]),
    .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
    .systemLibrary(name: "CWebsockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
    // The media worker's system calls that Swift cannot make well: recvmmsg/sendmmsg, epoll, TCP.
    .target(name: "CShims"),
]

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
/// The packet path (transport and media). SwiftPM refuses unsafeFlags in a package depended
/// on by version, and SluiceClient depends on these targets, so by default there are none
/// (scripts/check-sdk-dependency.sh checks it): dynamic exclusivity checks stay on, and the
/// per-packet state is laid out so the optimizer removes them (docs/design.md, hot-path rule 8).
/// The server's own scripts (scripts/test.sh, run.sh, leaks.sh, loadtest-smoke.sh) set
/// SLUICE_SERVER_BUILD=1, which also skips the checks that remain (the Consumer's, about 2% of
/// a forwarded packet's instructions) in release builds. An app that depends on Sluice never
/// sets it. Keep it the same from build to build: a change rebuilds every packet-path module.
let serverBuild = Context.environment["SLUICE_SERVER_BUILD"] == "1"
let packetPath: [SwiftSetting] = swift5
    + (serverBuild ? [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))] : [])

let package = Package(
    name: "Sluice",
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .executable(name: "sluice-loadtest", targets: ["sluice-loadtest"]),
        .library(name: "SluiceServer", targets: ["SluiceServer"]),
        // Parser modules as products, so the fuzz package (Fuzz/) can link them.
        .library(name: "SluiceWire", targets: ["SluiceWire"]),
        .library(name: "SluiceRTP", targets: ["SluiceRTP"]),
        .library(name: "SluiceSDP", targets: ["SluiceSDP"]),
        .library(name: "SluiceTransport", targets: ["SluiceTransport"]),
        .library(name: "SluiceJSON", targets: ["SluiceJSON"]),
        .library(name: "SluiceSignaling", targets: ["SluiceSignaling"]),
        .library(name: "SluiceClient", targets: ["SluiceClient"]),
    ],
    targets: cLibraries + [
        .target(name: "SluiceWire", swiftSettings: packetPath),
        // Test-only: counts heap allocations (the zero-allocation forwarding test).
        .target(name: "CMallocCounter"),
        .target(name: "SluiceRTP", dependencies: ["SluiceWire"], swiftSettings: packetPath),
        .target(name: "SluiceSDP", dependencies: ["SluiceWire"], swiftSettings: swift5),
        .target(name: "SluiceTransport",
                dependencies: ["SluiceWire", "SluiceRTP", "CShims", "COpenSSL", "CSRTP"],
                swiftSettings: packetPath),
        .target(name: "SluiceMedia",
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceSDP", "SluiceTransport"],
                swiftSettings: packetPath),
        .target(name: "SluiceJSON", dependencies: ["CJansson", "CShims"], swiftSettings: swift5),
        .target(name: "SluiceSignaling",
                dependencies: ["SluiceWire", "SluiceJSON", "SluiceMedia", "CWebsockets", "CShims", "COpenSSL"],
                swiftSettings: swift5),
        .target(name: "SluiceServer",
                dependencies: ["SluiceJSON", "SluiceMedia", "SluiceSignaling", "SluiceTransport"],
                swiftSettings: swift5),
        .target(name: "SluiceClient",
                // The media part needs SluiceTransport (epoll, Linux); signaling builds everywhere.
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceSDP",
                               .target(name: "SluiceTransport", condition: .when(platforms: [.linux]))],
                swiftSettings: swift5),
        // Synthetic media (VP8 and Opus sources, a publisher, receive statistics): tooling for
        // the load tester, the tests and the benchmarks, not part of the SluiceClient product.
        .target(name: "SluiceTestMedia", dependencies: ["SluiceClient", "SluiceRTP", "SluiceWire"],
                swiftSettings: swift5),
        .executableTarget(name: "sluice", dependencies: ["SluiceServer"], swiftSettings: swift5),
        // The load tester (README.md "Load tester"): the library holds everything testable,
        // the executable only reads flags and runs it.
        .target(name: "SluiceLoadTest", dependencies: ["SluiceClient", "SluiceTestMedia", "SluiceRTP", "SluiceWire"],
                path: "loadtest/Sources/SluiceLoadTest", swiftSettings: swift5),
        .executableTarget(name: "sluice-loadtest", dependencies: ["SluiceLoadTest"],
                          path: "loadtest/Sources/sluice-loadtest", swiftSettings: swift5),

        .testTarget(name: "SluiceWireTests", dependencies: ["SluiceWire"], swiftSettings: swift5),
        .testTarget(name: "SluiceRTPTests", dependencies: ["SluiceRTP"], swiftSettings: swift5),
        .testTarget(name: "SluiceSDPTests", dependencies: ["SluiceSDP"], resources: [.copy("Offers")], swiftSettings: swift5),
        .testTarget(name: "SluiceTransportTests", dependencies: ["SluiceTransport"], swiftSettings: swift5),
        .testTarget(name: "SluiceMediaTests", dependencies: ["SluiceMedia"], swiftSettings: swift5),
        .testTarget(name: "SluiceSignalingTests", dependencies: ["SluiceSignaling", "SluiceJSON"], swiftSettings: swift5),
        .testTarget(name: "SluiceServerTests", dependencies: ["SluiceServer"], swiftSettings: swift5),
        .testTarget(name: "SluiceLoadTestTests", dependencies: ["SluiceLoadTest", "SluiceTestMedia"],
                    path: "loadtest/Tests/SluiceLoadTestTests", swiftSettings: swift5),
        .testTarget(name: "SluiceClientTests", dependencies: ["SluiceClient", "SluiceTestMedia", "SluiceServer", "CMallocCounter"],
                    swiftSettings: swift5),
    ]
)
