import SluiceJSON
import SluiceJSONParser

/// The audio levels of the streams one node publishes (`sluice:levels:<nodeId>`, JSON),
/// written every `LevelExchange` period while it has any and expiring soon after: the active
/// speaker on every node follows them (docs/cluster.md, "Speakers across nodes").
public struct LevelRecord: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var stream: String
        /// The smoothed level, dBov, -127 (silence) to 0.
        public var level: Double
        /// The last 100 ms window's mean (dBov): voice now.
        public var voice: Double
        /// Muted by its publisher or the server: never speaking.
        public var muted: Bool

        public init(stream: String, level: Double, voice: Double, muted: Bool) {
            self.stream = stream
            self.level = level
            self.voice = voice
            self.muted = muted
        }
    }

    public var node: String
    public var entries: [Entry]

    /// Streams one record may list: a record over it is junk.
    public static let maxEntries = 10_000

    public init(node: String, entries: [Entry]) {
        self.node = node
        self.entries = entries
    }

    public var json: JSONValue {
        ["node": .string(node), "levels": .array(entries.map { entry in
            ["s": .string(entry.stream), "l": JSONValue(entry.level), "v": JSONValue(entry.voice), "m": .bool(entry.muted)]
        })]
    }

    /// Nil for anything that is not a whole record (a name of 1 to 128 bytes, a level and a
    /// voice from -127 to 0, a mute flag for each entry).
    public init?(json value: JSONValue) {
        guard let node = value["node"]?.stringValue, (1...64).contains(node.utf8.count),
              let items = value["levels"]?.arrayValue, items.count <= Self.maxEntries else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            guard let stream = item["s"]?.stringValue, (1...128).contains(stream.utf8.count),
                  let level = item["l"]?.doubleValue, level.isFinite, (-127...0).contains(level),
                  let voice = item["v"]?.doubleValue, voice.isFinite, (-127...0).contains(voice),
                  let muted = item["m"]?.boolValue else { return nil }
            entries.append(Entry(stream: stream, level: level, voice: voice, muted: muted))
        }
        self.init(node: node, entries: entries)
    }

    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        self.init(json: value)
    }
}
