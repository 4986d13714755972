import SluiceCluster
import SluiceJSON

/// Cluster records come from Redis, written by any node (or anything else that can write
/// there). Per input: as a node, stream, presence and level record it must be read or refused
/// without a crash, and a record read must survive its own serialization unchanged; as text,
/// a Redis URL that parses must parse again from its description to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClusterRecords(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let node = NodeRecord(bytes: bytes), NodeRecord(bytes: node.json.serializedBytes()) != node {
        fatalError("a node record changed through its own JSON")
    }
    if let stream = StreamRecord(bytes: bytes), StreamRecord(bytes: stream.json.serializedBytes()) != stream {
        fatalError("a stream record changed through its own JSON")
    }
    if let presence = PresenceRecord(bytes: bytes), PresenceRecord(bytes: presence.json.serializedBytes()) != presence {
        fatalError("a presence record changed through its own JSON")
    }
    if let levels = LevelRecord(bytes: bytes), LevelRecord(bytes: levels.json.serializedBytes()) != levels {
        fatalError("a level record changed through its own JSON")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let url = try? RedisURL(parsing: text) {
        // The description shows a password as ***: it parses back to the URL with that one.
        var shown = url
        if shown.password != nil { shown.password = "***" }
        guard (try? RedisURL(parsing: url.description)) == shown else {
            fatalError("\(text) parsed, but its description \(url.description) does not parse back to it")
        }
    }
    return 0
}
