import SluiceTransport
import SluiceWire

/// A player's figures for `getStats` and the admin API (docs/protocol.md section 3).
extension Consumer {
    func stats() -> HandleStats {
        func kindStats(_ track: OutgoingTrack?) -> KindStats? {
            guard let track else { return nil }
            var s = KindStats()
            s.packets = track.packets
            s.bytes = track.bytes
            s.bitrateKbps = track.bitrate.kbps
            s.codec = track.parameters.codecName
            s.rttMs = feedback.rttMillis
            s.fractionLost = feedback.remoteFractionLost
            s.packetsLost = feedback.remoteLost
            s.jitterMs = feedback.remoteJitterMs
            s.keyFrames = track.keyFrames
            if track.parameters.redPayloadType != nil { s.redPackets = track.redPackets }
            if track.parameters.kind == .video {
                s.plis = feedback.plisReceived
                s.firs = feedback.firsReceived
                s.nacks = feedback.nacksReceived
                s.layer = state.forwarder.currentLayer
                s.availableBandwidthKbps = bandwidthKbps
                s.fps = track.frames.fps
                s.cacheStarts = cacheStarts
                if let upstream {
                    s.layers = upstream.layerStats(now: MonotonicClock.nowMicros())
                    if let layer = state.forwarder.currentLayer {
                        let size = upstream.layerSize(layer)
                        s.width = size.width
                        s.height = size.height
                    }
                    let spatial = upstream.spatialLayers
                    if state.forwarder.choosesSpatialLayers, !spatial.isEmpty {
                        s.spatialLayers = LayerStats.spatial(spatial, temporalLayers: upstream.layerTiming(0).temporalLayers)
                        s.spatialLayer = state.forwarder.currentSpatial
                        if let current = spatial.first(where: { $0.index == state.forwarder.currentSpatial }) {
                            s.width = current.width
                            s.height = current.height
                        }
                    }
                }
            }
            return s
        }
        var stats = HandleStats(handle: parameters.handle, stream: parameters.stream, role: .play,
                                audio: kindStats(sender.state.audio), video: kindStats(sender.state.video))
        stats.connectionQuality = quality
        stats.transportProtocol = transport.selectedPath.map { $0.isTCP ? "tcp" : "udp" }
        stats.tcpSendDroppedPackets = transport.tcpSendDroppedPackets
        return stats
    }
}
