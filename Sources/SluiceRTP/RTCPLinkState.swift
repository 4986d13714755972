import SluiceWire

/// The origin's state of a relayed stream, sent on a relay link: RTCP APP (PT 204, RFC 3550
/// section 6.7), subtype 1, name "SLCE" (docs/cluster.md, "Link messages"). In-band, so it
/// is protected like the media (SRTCP) and needs no channel of its own; sent when the state
/// changes and every 250 ms, so a lost one is repaired at once and the edge can tell a live
/// link from a dead one by silence even when the stream carries no media.
///
///     serial (32) | flags (8) | layer count (8) | reserved (16)
///     then per video layer: width (16) | height (16) | fps x 100 (16) | flags (16) | kbps (32)
///
/// Stream flags: bit 0 audio muted by the publisher, bit 1 audio muted by the server, bit 2
/// video by the publisher, bit 3 video by the server. Layer flags: bit 0 active.
public struct RTCPLinkState: Equatable, Sendable {
    public static let subtype: UInt8 = 1
    public static let maxLayers = 8

    public struct Layer: Equatable, Sendable {
        public var width: UInt16
        public var height: UInt16
        /// Frames per second times 100.
        public var fpsCenti: UInt16
        public var active: Bool
        public var bitrateKbps: UInt32

        public init(width: UInt16, height: UInt16, fpsCenti: UInt16, active: Bool, bitrateKbps: UInt32) {
            self.width = width
            self.height = height
            self.fpsCenti = fpsCenti
            self.active = active
            self.bitrateKbps = bitrateKbps
        }
    }

    public struct Mute: OptionSet, Equatable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let audioByPublisher = Mute(rawValue: 1)
        public static let audioByServer = Mute(rawValue: 2)
        public static let videoByPublisher = Mute(rawValue: 4)
        public static let videoByServer = Mute(rawValue: 8)
        static let known: Mute = [.audioByPublisher, .audioByServer, .videoByPublisher, .videoByServer]
    }

    public var senderSSRC: UInt32
    /// Grows by one per change; an edge ignores a state older than the one it has.
    public var serial: UInt32
    public var mute: Mute
    /// At most `maxLayers`; `write` sends the first ones.
    public var layers: [Layer]

    public init(senderSSRC: UInt32, serial: UInt32, mute: Mute, layers: [Layer]) {
        self.senderSSRC = senderSSRC
        self.serial = serial
        self.mute = mute
        self.layers = layers
    }

    /// Parses the first packet of `buffer`: nil unless it is a well-formed link state.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard var reader = RTCPLinkMessage.body(buffer, subtype: Self.subtype),
              let sender = reader.readUInt32(), reader.readUInt32() == RTCPLinkMessage.name,
              let serial = reader.readUInt32(), let flags = reader.readUInt8(), let count = reader.readUInt8(),
              reader.readUInt16() != nil, Int(count) <= Self.maxLayers else { return nil }
        var layers: [Layer] = []
        for _ in 0..<count {
            guard let width = reader.readUInt16(), let height = reader.readUInt16(), let fps = reader.readUInt16(),
                  let layerFlags = reader.readUInt16(), let kbps = reader.readUInt32() else { return nil }
            layers.append(Layer(width: width, height: height, fpsCenti: fps, active: layerFlags & 1 != 0, bitrateKbps: kbps))
        }
        guard reader.remaining == 0 else { return nil }
        self.init(senderSSRC: sender, serial: serial, mute: Mute(rawValue: flags).intersection(.known), layers: layers)
    }

    public var serializedSize: Int { 20 + min(layers.count, Self.maxLayers) * 12 }

    public func write(into writer: inout ByteWriter) {
        let sent = layers.prefix(Self.maxLayers)
        RTCPPacket.writeHeader(into: &writer, count: Self.subtype, type: RTCPPacketType.application, size: serializedSize)
        writer.write(senderSSRC)
        writer.write(RTCPLinkMessage.name)
        writer.write(serial)
        writer.write(mute.rawValue)
        writer.write(UInt8(sent.count))
        writer.write(UInt16(0))
        for layer in sent {
            writer.write(layer.width)
            writer.write(layer.height)
            writer.write(layer.fpsCenti)
            writer.write(UInt16(layer.active ? 1 : 0))
            writer.write(layer.bitrateKbps)
        }
    }
}

/// What the link messages share: RTCP APP packets named "SLCE", told apart by subtype.
public enum RTCPLinkMessage {
    /// "SLCE" in ASCII.
    public static let name: UInt32 = 0x534C_4345

    /// A reader at the packet's sender SSRC when the first packet of `buffer` is an APP packet
    /// of `subtype`.
    static func body(_ buffer: UnsafeRawBufferPointer, subtype: UInt8) -> ByteReader? {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.application, count: subtype),
              !packet.hasPadding else { return nil }
        return ByteReader(packet.body)
    }
}
