// swift-tools-version:6.0
// Sluice: a WebRTC SFU. Module map and layering: see README.md ("Architecture").
import PackageDescription

let cLibraries: [Target] = [
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
    // No pkgConfig: usrsctp.pc's cflags are -DINET -DINET6, which SwiftPM refuses with a warning
    // on every build and which the public header does not read; the modulemap links it.
    .systemLibrary(name: "CUsrsctp", providers: [.apt(["libusrsctp-dev"])]),
    .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
    .systemLibrary(name: "CWebsockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
    // The cluster registry's Redis client (Debian's redis-server is the shared state). No
    // pkgConfig: hiredis.pc's only cflag is -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with
    // a warning on every build (and which changes nothing on 64-bit); the header is under
    // /usr/include/hiredis and the modulemap links the library.
    .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
    // The recorder's muxer (WebM and fragmented MP4 from encoded frames; nothing is transcoded).
    .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
    // The call log's embedded database (SQLite 3.40 from Debian).
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // The call log shared by a cluster's nodes: PostgreSQL's client library (libpq 15 from Debian).
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    // The server executable's allocator (jemalloc 5.3 from Debian): glibc's arenas kept the pages
    // of freed join state (issue 33; docs/design.md "Memory under churn"). Only `sluice` links
    // it: SluiceClient and the tests stay on the system allocator.
    .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
    // The media worker's system calls that Swift cannot make well: recvmmsg/sendmmsg, epoll, TCP.
    .target(name: "CShims"),
    // HMAC-SHA1 with the key's pads absorbed once, for SRTP's AES-CM profile: OpenSSL 3's own
    // HMAC allocates on every re-key (SRTP/OpenSSLSRTPContext.swift says why it matters).
    .target(name: "CHMACSHA1", dependencies: ["COpenSSL"]),
]

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
/// Complete data-race checking (issue 31): the targets moved to it so far. The rest stay in
/// Swift 5 mode until their shared state is shown safe to the compiler.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
/// No target has unsafeFlags: SwiftPM refuses them in a package depended on by version, and
/// SluiceClient depends on the packet-path targets (scripts/check-sdk-dependency.sh checks
/// it). Swift's dynamic exclusivity checks stay on; the per-packet state is laid out so the
/// optimizer has none to make (docs/design.md, hot-path rule 8).
let packetPath: [SwiftSetting] = swift5

let package = Package(
    name: "Sluice",
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .executable(name: "sluice-loadtest", targets: ["sluice-loadtest"]),
        .library(name: "SluiceServer", targets: ["SluiceServer"]),
        // Parser modules as products, so the fuzz package (Fuzz/) can link them.
        .library(name: "SluiceWire", targets: ["SluiceWire"]),
        .library(name: "SluiceRTP", targets: ["SluiceRTP"]),
        .library(name: "SluiceVocabulary", targets: ["SluiceVocabulary"]),
        .library(name: "SluiceSDP", targets: ["SluiceSDP"]),
        .library(name: "SluiceTransport", targets: ["SluiceTransport"]),
        .library(name: "SluiceJSON", targets: ["SluiceJSON"]),
        .library(name: "SluiceJSONParser", targets: ["SluiceJSONParser"]),
        .library(name: "SluiceControl", targets: ["SluiceControl"]),
        .library(name: "SluiceSignaling", targets: ["SluiceSignaling"]),
        .library(name: "SluiceLog", targets: ["SluiceLog"]),
        .library(name: "SluiceClient", targets: ["SluiceClient"]),
        // For the fuzz package: the cluster's records are read from Redis, written by any node.
        .library(name: "SluiceCluster", targets: ["SluiceCluster"]),
        // For the fuzz package: the recorder's depacketizers read publishers' RTP payloads.
        .library(name: "SluiceRecord", targets: ["SluiceRecord"]),
        // For the fuzz package: the SCTP packet check and the DCEP parser read peers' bytes.
        .library(name: "SluiceDataChannel", targets: ["SluiceDataChannel"]),
        // For the fuzz package: the call settings of the JSON-RPC target's server.
        .library(name: "SluiceCalls", targets: ["SluiceCalls"]),
    ],
    targets: cLibraries + [
        .target(name: "SluiceWire", swiftSettings: packetPath),
        // The server's log line, as text or JSON, with the ids it is about as typed fields.
        .target(name: "SluiceLog", swiftSettings: swift6),
        // The words every module shares (roles, kinds, negotiated parameters): pure Swift, no deps.
        .target(name: "SluiceVocabulary", swiftSettings: swift6),
        // Test-only: counts heap allocations (the zero-allocation forwarding test).
        .target(name: "CMallocCounter"),
        .target(name: "SluiceRTP", dependencies: ["SluiceWire"], swiftSettings: packetPath),
        .target(name: "SluiceSDP", dependencies: ["SluiceWire", "SluiceVocabulary"], swiftSettings: swift6),
        .target(name: "SluiceTransport",
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceVocabulary", "SluiceLog", "CShims", "COpenSSL", "CSRTP",
                               "CHMACSHA1"],
                swiftSettings: packetPath),
        // The packet core: routers, producers, consumers, buffers, estimators. No SDP, no protocol words.
        .target(name: "SluiceMedia",
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceTransport", "SluiceVocabulary", "SluiceLog"],
                swiftSettings: packetPath),
        // Data channels (docs/design.md "Data channels"): usrsctp on a thread of its own, fed
        // by the transports' DTLS application data; DCEP, and the forwarding of messages.
        .target(name: "SluiceDataChannel",
                dependencies: ["SluiceWire", "SluiceVocabulary", "SluiceTransport", "CShims", "CUsrsctp"],
                swiftSettings: swift5),
        // The control plane: stream registry, limits, negotiation, mute policy, the event words.
        .target(name: "SluiceControl",
                dependencies: ["SluiceWire", "SluiceSDP", "SluiceTransport", "SluiceMedia", "SluiceVocabulary",
                               "SluiceRecord", "SluiceDataChannel", "SluiceJSON", "SluiceLog"],
                swiftSettings: swift6),
        // The JSON value (pure Swift, shared by the server and the client SDK) and, apart, the
        // server's strict parser over jansson, so the SDK does not link jansson.
        .target(name: "SluiceJSON", swiftSettings: swift6),
        .target(name: "SluiceJSONParser", dependencies: ["SluiceJSON", "CJansson"], swiftSettings: swift6),
        .target(name: "SluiceSignaling",
                dependencies: ["SluiceWire", "SluiceJSON", "SluiceJSONParser", "SluiceVocabulary", "SluiceMedia",
                               "SluiceControl", "SluiceTransport", "SluiceDataChannel", "SluiceCalls", "SluiceLog",
                               "CWebsockets", "COpenSSL"],
                swiftSettings: swift6),
        // Recording (docs/recording.md): frames reassembled from a stream's RTP, off the packet
        // path, written to WebM or MP4 by libavformat on the recorder thread.
        .target(name: "SluiceRecord",
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceVocabulary", "SluiceMedia", "CAVFormat"],
                swiftSettings: swift5),
        // The cluster's shared state in Redis (docs/cluster.md): node heartbeats, stream claims.
        // Knows no media, no signaling: the server hands it figures and asks it for claims.
        .target(name: "SluiceCluster", dependencies: ["CHiredis", "SluiceJSON", "SluiceJSONParser"],
                swiftSettings: swift6),
        // 1:1 calls (docs/protocol.md section 6, "Calls"): the pure state machine and the call
        // log's record types and store protocol. Knows no socket, no JSON and no database.
        .target(name: "SluiceCalls", dependencies: ["SluiceVocabulary"], swiftSettings: swift6),
        // The call log in an SQLite file (one node) or in PostgreSQL (a cluster): versioned
        // schema, a writer thread, indexed pages.
        .target(name: "SluiceCallLog", dependencies: ["SluiceCalls", "CSQLite", "CLibPQ"], swiftSettings: swift6),
        .target(name: "SluiceServer",
                dependencies: ["SluiceWire", "SluiceJSON", "SluiceJSONParser", "SluiceVocabulary", "SluiceMedia",
                               "SluiceControl", "SluiceSignaling", "SluiceTransport", "SluiceCluster", "SluiceRecord",
                               "SluiceDataChannel", "SluiceCalls", "SluiceCallLog", "SluiceLog", "CShims"],
                swiftSettings: swift6),
        .target(name: "SluiceClient",
                // The media part needs SluiceTransport (epoll, Linux); signaling builds everywhere.
                dependencies: ["SluiceWire", "SluiceRTP", "SluiceVocabulary", "SluiceSDP", "SluiceJSON",
                               .target(name: "SluiceTransport", condition: .when(platforms: [.linux]))],
                swiftSettings: swift6),
        // Synthetic media (VP8 and Opus sources, a publisher, receive statistics): tooling for
        // the load tester, the tests and the benchmarks, not part of the SluiceClient product.
        .target(name: "SluiceTestMedia", dependencies: ["SluiceClient", "SluiceRTP", "SluiceWire"],
                swiftSettings: swift5),
        // A real PostgreSQL for the tests (initdb in a temporary folder, as a non-root user):
        // the call log's and the server's tests share it. Not part of any product.
        .target(name: "SluiceTestPostgres", dependencies: ["CLibPQ"], swiftSettings: swift6),
        .executableTarget(name: "sluice", dependencies: ["SluiceServer", "CJemalloc"], swiftSettings: swift5),
        // The load tester (docs/benchmarks.md, "Load tester"): the library holds everything
        // testable, the executable only reads flags and runs it.
        .target(name: "SluiceLoadTest", dependencies: ["SluiceClient", "SluiceTestMedia", "SluiceRTP", "SluiceWire", "SluiceTransport",
                                               "SluiceVocabulary"],
                path: "loadtest/Sources/SluiceLoadTest", swiftSettings: swift5),
        .executableTarget(name: "sluice-loadtest", dependencies: ["SluiceLoadTest"],
                          path: "loadtest/Sources/sluice-loadtest", swiftSettings: swift5),

        .testTarget(name: "SluiceWireTests", dependencies: ["SluiceWire"], swiftSettings: swift5),
        .testTarget(name: "SluiceRTPTests", dependencies: ["SluiceRTP"], swiftSettings: swift5),
        .testTarget(name: "SluiceVocabularyTests", dependencies: ["SluiceVocabulary"], swiftSettings: swift5),
        .testTarget(name: "SluiceSDPTests", dependencies: ["SluiceSDP", "SluiceVocabulary"], resources: [.copy("Offers")], swiftSettings: swift5),
        .testTarget(name: "SluiceTransportTests", dependencies: ["CShims", "SluiceTransport", "SluiceVocabulary", "SluiceLog"], swiftSettings: swift5),
        .testTarget(name: "SluiceMediaTests", dependencies: ["SluiceMedia", "SluiceVocabulary", "SluiceLog"], swiftSettings: swift5),
        .testTarget(name: "SluiceControlTests",
                    dependencies: ["SluiceControl", "SluiceMedia", "SluiceTransport", "SluiceVocabulary"],
                    swiftSettings: swift5),
        .testTarget(name: "SluiceRecordTests", dependencies: ["SluiceRecord", "SluiceRTP", "SluiceVocabulary"],
                    swiftSettings: swift5),
        .testTarget(name: "SluiceDataChannelTests", dependencies: ["SluiceDataChannel"], swiftSettings: swift5),
        .testTarget(name: "SluiceCallsTests", dependencies: ["SluiceCalls"], swiftSettings: swift5),
        .testTarget(name: "SluiceCallLogTests", dependencies: ["SluiceCallLog", "SluiceCalls", "CSQLite", "SluiceTestPostgres"],
                    swiftSettings: swift5),
        .testTarget(name: "SluiceLogTests", dependencies: ["SluiceLog"], swiftSettings: swift5),
        .testTarget(name: "SluiceJSONTests", dependencies: ["SluiceJSON", "SluiceJSONParser"], swiftSettings: swift5),
        .testTarget(name: "SluiceSignalingTests",
                    dependencies: ["SluiceSignaling", "SluiceJSON", "SluiceJSONParser", "SluiceControl", "SluiceMedia",
                                   "SluiceVocabulary", "SluiceCalls", "SluiceLog"], swiftSettings: swift5),
        .testTarget(name: "SluiceServerTests", dependencies: ["SluiceServer", "SluiceControl", "SluiceMedia", "SluiceVocabulary",
                                                         "SluiceCluster", "SluiceDataChannel", "SluiceTestPostgres", "SluiceLog"],
                    swiftSettings: swift5),
        .testTarget(name: "SluiceClusterTests",
                    dependencies: ["SluiceCluster", "SluiceJSON", "SluiceJSONParser", "SluiceServer", "SluiceSignaling"],
                    swiftSettings: swift5),
        .testTarget(name: "SluiceLoadTestTests", dependencies: ["SluiceLoadTest", "SluiceTestMedia"],
                    path: "loadtest/Tests/SluiceLoadTestTests", swiftSettings: swift5),
        .testTarget(name: "SluiceClientTests", dependencies: ["SluiceClient", "SluiceTestMedia", "SluiceServer", "SluiceCluster",
                                                         "SluiceRecord", "CMallocCounter"],
                    swiftSettings: swift5),
    ]
)
