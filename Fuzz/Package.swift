// swift-tools-version:6.0
// libFuzzer targets for every parser that reads the network (docs/design.md "Fuzzing").
// Build and run with scripts/fuzz.sh; each target's seed corpus is Fuzz/Corpus/<target>/.
import PackageDescription

let fuzzFlags: [SwiftSetting] = [.swiftLanguageMode(.v5), .unsafeFlags(["-parse-as-library"])]

func fuzzTarget(_ name: String, _ deps: [String]) -> Target {
    .executableTarget(name: name,
                      dependencies: deps.map { .product(name: $0, package: "main") },
                      swiftSettings: fuzzFlags)
}

let package = Package(
    name: "SluiceFuzz",
    dependencies: [.package(name: "main", path: "..")],
    targets: [
        fuzzTarget("FuzzWire", ["SluiceWire"]),
        fuzzTarget("FuzzSDP", ["SluiceSDP", "SluiceVocabulary"]),
        fuzzTarget("FuzzSTUN", ["SluiceTransport", "SluiceWire"]),
        fuzzTarget("FuzzRFC4571", ["SluiceTransport"]),
        fuzzTarget("FuzzSRTP", ["SluiceTransport"]),
        fuzzTarget("FuzzRTP", ["SluiceRTP", "SluiceWire"]),
        fuzzTarget("FuzzRTCP", ["SluiceRTP", "SluiceWire"]),
        fuzzTarget("FuzzJSONRPC", ["SluiceJSON", "SluiceJSONParser", "SluiceSignaling", "SluiceControl", "SluiceVocabulary", "SluiceCalls",
                                   "SluiceLog"]),
        fuzzTarget("FuzzWebSocketFrame", ["SluiceClient"]),
        fuzzTarget("FuzzHTTP", ["SluiceJSON", "SluiceJSONParser", "SluiceSignaling", "SluiceServer", "SluiceRecord"]),
        fuzzTarget("FuzzJWT", ["SluiceSignaling"]),
        fuzzTarget("FuzzClusterRecords", ["SluiceCluster", "SluiceJSON"]),
        fuzzTarget("FuzzClusterLinks", ["SluiceServer", "SluiceJSON"]),
        fuzzTarget("FuzzClusterCalls", ["SluiceSignaling", "SluiceJSON"]),
        fuzzTarget("FuzzRecordAssembly", ["SluiceRecord", "SluiceVocabulary"]),
        fuzzTarget("FuzzSCTP", ["SluiceDataChannel"]),
    ]
)
