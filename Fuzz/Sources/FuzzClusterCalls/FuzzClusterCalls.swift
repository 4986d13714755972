import SluiceJSON
import SluiceSignaling

/// The nodes' call messages (docs/cluster.md, "Calls across nodes"): a node reads a batch from
/// any host that holds the cluster secret, and the answer of the node it asked. Per input, as a
/// batch and as an answer: read or refused (with a member named) without a crash, and what is
/// read must survive its own JSON unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClusterCalls(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let batch = try? ClusterCallJSON.batch(from: bytes) {
        let again = try? ClusterCallJSON.batch(from: ClusterCallJSON.batch(from: batch.node, batch.messages).serializedBytes())
        guard let again, again.node == batch.node, again.messages == batch.messages else {
            fatalError("a call batch changed through its own JSON")
        }
    }
    if let reply = try? ClusterCallJSON.reply(from: bytes) {
        guard let again = try? ClusterCallJSON.reply(from: ClusterCallJSON.reply(reply).serializedBytes()), again == reply else {
            fatalError("a call reply changed through its own JSON")
        }
    }
    return 0
}
