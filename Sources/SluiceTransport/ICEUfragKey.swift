/// An ICE username fragment as a fixed-size hashable value, so that a worker can look a
/// transport up by the ufrag of a binding request without building a String per packet.
/// Holds up to 32 bytes inline: Sluice's own ufrags are shorter, so a longer fragment in a
/// request cannot name one of its transports.
public struct ICEUfragKey: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 32

    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public let length: Int

    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= ICEUfragKey.maxLength else { return nil }
        length = bytes.count
        withUnsafeMutableBytes(of: &words) { storage in
            for i in 0..<bytes.count { storage[i] = bytes[i] }
        }
    }

    public init?(_ ufrag: String) {
        var utf8 = Array(ufrag.utf8)
        guard let key = utf8.withUnsafeMutableBytes({ ICEUfragKey(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = key
    }

    public static func == (lhs: ICEUfragKey, rhs: ICEUfragKey) -> Bool {
        lhs.length == rhs.length && lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(length)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    public var description: String {
        var copy = words
        return withUnsafeBytes(of: &copy) { String(decoding: $0.prefix(length), as: UTF8.self) }
    }
}
