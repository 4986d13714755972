import SluiceControl
import SluiceDataChannel
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// The JSON shapes of what the engine reports: stats (docs/protocol.md section 3) and the
/// `streamStatus` / `streamEvent` notification params. Public: the admin API shows the same
/// objects.
public enum MediaJSON {
    /// `identity`: the token's `sub` of the handle's session, when it has one.
    public static func stats(_ stats: HandleStats, identity: String? = nil, dataChannels: [DataChannelStats] = []) -> JSONValue {
        var object: JSONObject = [
            "handle": .string(stats.handle),
            "stream": .string(stats.stream),
            "role": .string(stats.role.rawValue),
        ]
        if let identity { object["identity"] = .string(identity) }
        if let audio = stats.audio { object["audio"] = kindStats(audio, video: false) }
        if let video = stats.video { object["video"] = kindStats(video, video: true) }
        // Before the first report there is nothing to score: the handle shows the score of no
        // measured loss, jitter or delay, so the object is always there (docs/protocol.md section 3).
        let quality = stats.connectionQuality ?? .unimpaired
        object["connectionQuality"] = ["score": JSONValue(quality.score), "level": .string(quality.level.rawValue)]
        if let path = stats.transportProtocol {
            var transport: JSONObject = ["protocol": .string(path)]
            if path == "tcp" { transport["sendDroppedPackets"] = JSONValue(stats.tcpSendDroppedPackets) }
            object["transport"] = .object(transport)
        }
        if !dataChannels.isEmpty { object["dataChannels"] = .array(dataChannels.map(dataChannel)) }
        return .object(object)
    }

    /// One data channel's counters (docs/protocol.md section 7).
    public static func dataChannel(_ stats: DataChannelStats) -> JSONValue {
        var object: JSONObject = [
            "id": JSONValue(Int(stats.id)), "label": .string(stats.label), "protocol": .string(stats.protocol),
            "ordered": .bool(stats.ordered),
        ]
        if let n = stats.maxRetransmits { object["maxRetransmits"] = JSONValue(n) }
        if let ms = stats.maxPacketLifeTime { object["maxPacketLifeTime"] = JSONValue(ms) }
        object["messagesReceived"] = JSONValue(stats.messagesReceived)
        object["bytesReceived"] = JSONValue(stats.bytesReceived)
        object["messagesSent"] = JSONValue(stats.messagesSent)
        object["bytesSent"] = JSONValue(stats.bytesSent)
        object["messagesDropped"] = JSONValue(stats.messagesDropped)
        return .object(object)
    }

    public static func kindStats(_ stats: KindStats, video: Bool) -> JSONValue {
        var object: JSONObject = [
            "packets": JSONValue(stats.packets),
            "bytes": JSONValue(stats.bytes),
            "bitrate": JSONValue(stats.bitrateKbps),
            "packetsLost": JSONValue(stats.packetsLost),
            "fractionLost": JSONValue(stats.fractionLost),
            "jitterMs": JSONValue(stats.jitterMs),
            "rttMs": JSONValue(stats.rttMs),
            "nacks": JSONValue(stats.nacks),
            "plis": JSONValue(stats.plis),
            "firs": JSONValue(stats.firs),
        ]
        if let level = stats.level { object["level"] = JSONValue(level) }
        if let red = stats.redPackets { object["redPackets"] = JSONValue(red) }
        if video {
            object["fps"] = JSONValue(stats.fps)
            object["width"] = JSONValue(stats.width)
            object["height"] = JSONValue(stats.height)
            if let layer = stats.layer { object["layer"] = JSONValue(layer) }
            if let bandwidth = stats.availableBandwidthKbps { object["availableBandwidth"] = JSONValue(bandwidth) }
            object["keyFrames"] = JSONValue(stats.keyFrames)
            if let starts = stats.cacheStarts { object["cacheStarts"] = JSONValue(starts) }
            if let spatial = stats.spatialLayer { object["spatialLayer"] = JSONValue(spatial) }
            if let e2ee = stats.e2ee { object["e2ee"] = .bool(e2ee) }
            object["layers"] = .array(stats.layers.map(layerJSON))
            if !stats.spatialLayers.isEmpty { object["spatialLayers"] = .array(stats.spatialLayers.map(layerJSON)) }
        }
        if let codec = stats.codec { object["codec"] = .string(codec) }
        return .object(object)
    }

    private static func layerJSON(_ layer: LayerStats) -> JSONValue {
        var entry: JSONObject = ["index": JSONValue(layer.index)]
        if let rid = layer.rid { entry["rid"] = .string(rid) }
        entry["width"] = JSONValue(layer.width)
        entry["height"] = JSONValue(layer.height)
        entry["fps"] = JSONValue(layer.fps)
        entry["bitrate"] = JSONValue(layer.bitrateKbps)
        entry["active"] = .bool(layer.active)
        entry["temporalLayers"] = JSONValue(layer.temporalLayers)
        return .object(entry)
    }

    static func streamStatus(handle: StreamHandle, stream: String, role: StreamRole, status: StreamStatus,
                             info: String?) -> JSONObject {
        var params: JSONObject = [
            "handle": .string(handle),
            "stream": .string(stream),
            "role": .string(role.rawValue),
            "status": .string(status.rawValue),
        ]
        if let info { params["info"] = .string(info) }
        return params
    }

    static func streamEvent(handle: StreamHandle, stream: String, type: String, by: String?,
                            data: [String: StreamEventValue]) -> JSONObject {
        var params: JSONObject = [
            "handle": .string(handle),
            "stream": .string(stream),
            "type": .string(type),
        ]
        if let by { params["by"] = .string(by) }
        if !data.isEmpty {
            var members = JSONObject()
            // Sorted, so the same event always reads the same.
            for key in data.keys.sorted() {
                guard let value = data[key] else { continue }
                members[key] = json(value)
            }
            params["data"] = .object(members)
        }
        return params
    }

    /// A pre-call test's `streamEvent`: it has no stream.
    static func precallEvent(handle: StreamHandle, type: String, data: [String: StreamEventValue]) -> JSONObject {
        var params = streamEvent(handle: handle, stream: "", type: type, by: nil, data: data)
        params["stream"] = nil
        return params
    }

    /// An event's value as written: every object's keys sorted, at any depth.
    static func json(_ value: StreamEventValue) -> JSONValue {
        switch value {
        case .object(let members):
            var object = JSONObject()
            for (key, member) in members.sorted(by: { $0.0 < $1.0 }) { object[key] = json(member) }
            return .object(object)
        case .array(let elements):
            return .array(elements.map(json))
        case .null, .bool, .int, .double, .string:
            return value
        }
    }
}
