import SluiceDataChannel
import SluiceJSON
import SluiceMedia
import SluiceRecord
import SluiceVocabulary

/// The words of docs/protocol.md ("Events") for what the media side reports as typed values:
/// event names, `by`, data keys and values. The one place they are spelled; status `info`
/// strings are `StatusInfo`'s.
package enum EventWords {
    /// A `streamEvent` notification's type, `by` and `data`.
    package struct Words: Equatable, Sendable {
        package var type: String
        package var by: String?
        package var data: [String: StreamEventValue]

        package init(type: String, by: String?, data: [String: StreamEventValue] = [:]) {
            self.type = type
            self.by = by
            self.data = data
        }
    }

    /// The words of a worker's stream event; nil for a status change (`publishing`,
    /// `playing`, `failed`), which becomes a `streamStatus` instead.
    package static func words(_ event: WorkerEvent) -> Words? {
        switch event {
        case .publishing, .playing, .failed, .linkMuted, .precallProgress, .precallDone, .audioLevel:
            return nil
        case .layerChanged(_, let layer, let width, let height, let reason):
            return Words(type: "layerChanged", by: nil, data: [
                "layer": .int(Int64(layer)), "width": .int(Int64(width)), "height": .int(Int64(height)),
                "reason": .string(word(reason))])
        case .notEnoughBandwidth(_, let kbps):
            return Words(type: "notEnoughBandwidth", by: nil, data: ["bandwidth": .int(Int64(kbps))])
        case .connectionQuality(_, let score, let level):
            return Words(type: "connectionQuality", by: nil,
                         data: ["score": .double(score), "level": .string(level.rawValue)])
        case .limitExceeded(_, let limit, let value, let max):
            return Words(type: "limitExceeded", by: "server",
                         data: ["limit": .string(word(limit)), "value": .int(Int64(value)), "max": .int(Int64(max))])
        case .layersWanted(_, let rids, let layers):
            return Words(type: "layersWanted", by: "server",
                         data: ["rids": .array(rids.map { .string($0) }), "layers": .array(layers.map { .int(Int64($0)) })])
        case .resize(_, let width, let height):
            return Words(type: "resize", by: "publisher",
                         data: ["width": .int(Int64(width)), "height": .int(Int64(height))])
        }
    }

    /// A recording's event, with the recording's id; `ended` has no words (nothing is sent).
    package static func words(_ event: RecordingEvent) -> (String, Words?) {
        switch event {
        case .ended(let id):
            return (id, nil)
        case .started(let id, let path):
            return (id, Words(type: "recordingStarted", by: nil, data: ["path": .string(path)]))
        case .stopped(let id, let summary):
            return (id, Words(type: "recordingStopped", by: nil, data: [
                "path": .string(summary.path), "durationMs": .int(Int64(summary.durationMillis)),
                "bytes": .int(Int64(summary.bytes)), "codec": .string(summary.codec), "damaged": .bool(summary.damaged)]))
        case .failed(let id, let path, let reason, let message):
            return (id, Words(type: "recordingFailed", by: nil, data: [
                "path": .string(path), "reason": .string(reason.rawValue), "message": .string(message)]))
        }
    }

    /// A data channel's event: `dataChannelOpened`, `dataChannelClosed` (`label`, `id`), or
    /// `dataDropped` (`label`, `reason`: rateLimit, tooLarge or backlog, and `count`, the
    /// handle's drops for that reason so far).
    package static func dataChannel(_ event: DataChannelEvent) -> Words {
        switch event {
        case .opened(_, let label, let id):
            return Words(type: "dataChannelOpened", by: nil, data: ["label": .string(label), "id": .int(Int64(id))])
        case .closed(_, let label, let id):
            return Words(type: "dataChannelClosed", by: nil, data: ["label": .string(label), "id": .int(Int64(id))])
        case .dropped(_, let label, let reason, let count):
            return Words(type: "dataDropped", by: "server", data: [
                "label": .string(label), "reason": .string(reason.rawValue), "count": .int(Int64(count))])
        }
    }

    /// `layerChanged`'s `reason`.
    package static func word(_ reason: LayerSelector.Reason) -> String {
        switch reason {
        case .constraints: return "constraints"
        case .bandwidth: return "bandwidth"
        case .publisher: return "publisher"
        }
    }

    /// A cap's name, as in `limitExceeded`'s `limit` and "Failed by limit maxWidth".
    package static func word(_ limit: PublishLimit) -> String {
        switch limit {
        case .maxWidth: return "maxWidth"
        case .maxHeight: return "maxHeight"
        case .maxFps: return "maxFps"
        }
    }

    /// Who muted: the `by` of a mute event.
    package enum MuteSource: Sendable {
        case player, publisher, server
    }

    /// `audioMuted`, `videoUnmuted`, ... with its `by`.
    package static func mute(_ kind: MediaKind, muted: Bool, by source: MuteSource) -> Words {
        let by: String
        switch source {
        case .player: by = "player"
        case .publisher: by = "publisher"
        case .server: by = "server"
        }
        return Words(type: "\(kind.rawValue)\(muted ? "Muted" : "Unmuted")", by: by)
    }

    // MARK: Pre-call test (docs/protocol.md section 6)

    package static func precallProgress(_ figures: PrecallFigures) -> Words {
        Words(type: "precallProgress", by: nil, data: precallData(figures))
    }

    package static func precallReport(_ figures: PrecallFigures) -> Words {
        var data = precallData(figures)
        data["elapsedMs"] = nil
        data["durationMs"] = .int(Int64(figures.elapsedMs))
        let quality = figures.quality
        data["quality"] = .object(["score": .double(quality.score), "level": .string(quality.level.rawValue)])
        let advice = PrecallRecommendation(uplinkKbps: figures.uplinkKbps, downlinkKbps: figures.downlinkKbps)
        let publish: StreamEventValue = advice.publish.map { rung in
            .object(["width": .int(Int64(rung.width)), "height": .int(Int64(rung.height)), "fps": .int(Int64(rung.fps)),
                     "bitrate": .int(Int64(rung.bitrate))])
        } ?? .null
        let play: StreamEventValue = advice.playQuality.map { .object(["quality": .string($0)]) } ?? .null
        data["recommended"] = .object(["publish": publish, "play": play])
        return Words(type: "precallReport", by: nil, data: data)
    }

    private static func precallData(_ figures: PrecallFigures) -> [String: StreamEventValue] {
        func number(_ value: Double?) -> StreamEventValue { value.map { .double($0) } ?? .null }
        func kbps(_ value: Double?) -> StreamEventValue { value.map { .int(Int64($0.rounded())) } ?? .null }
        return ["elapsedMs": .int(Int64(figures.elapsedMs)), "rttMs": number(figures.rttMs),
                "jitterMs": number(figures.jitterMs), "lossUp": number(figures.lossUp),
                "lossDown": number(figures.lossDown), "uplinkKbps": kbps(figures.uplinkKbps),
                "downlinkKbps": kbps(figures.downlinkKbps)]
    }
}
