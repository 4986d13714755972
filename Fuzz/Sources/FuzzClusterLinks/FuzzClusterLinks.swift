import SluiceJSON
import SluiceServer

/// The nodes' link exchange (docs/cluster.md, "Relay links"): an origin reads a LinkRequest
/// from any host that holds the cluster secret, and an edge reads the origin's LinkAnswer. Per
/// input, as a request and as an answer: read or refused (with a field named) without a crash,
/// and what is read must survive its own JSON unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClusterLinks(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let request = try? LinkJSON.request(from: bytes) {
        guard let again = try? LinkJSON.request(from: LinkJSON.json(request).serializedBytes()), again == request else {
            fatalError("a link request changed through its own JSON")
        }
    }
    if let answer = try? LinkJSON.answer(from: bytes) {
        guard let again = try? LinkJSON.answer(from: LinkJSON.json(answer).serializedBytes()), again == answer else {
            fatalError("a link answer changed through its own JSON")
        }
    }
    return 0
}
