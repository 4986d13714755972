import SluiceDataChannel
import SluiceVocabulary

/// The data channel families of `/metrics`, labelled `stream`, `role` (publish: the
/// publisher's channels; play: summed over the stream's players), `label` (the channel's) and
/// `direction` (`received`: from the peers; `sent`: to them).
enum AdminDataChannelMetrics {
    typealias Handle = (handle: StreamHandle, stream: String, role: StreamRole, channels: [DataChannelStats])

    static func families(_ handles: [Handle]) -> [PrometheusMetricFamily] {
        struct Key: Hashable, Comparable {
            var stream: String, role: String, label: String
            static func < (a: Key, b: Key) -> Bool { (a.stream, a.role, a.label) < (b.stream, b.role, b.label) }
        }
        var sums: [Key: DataChannelStats] = [:]
        for handle in handles {
            for channel in handle.channels {
                let key = Key(stream: handle.stream, role: handle.role.rawValue, label: channel.label)
                var sum = sums[key] ?? DataChannelStats(id: 0, label: channel.label, protocol: "", reliability: .reliableOrdered)
                sum.messagesReceived += channel.messagesReceived
                sum.bytesReceived += channel.bytesReceived
                sum.messagesSent += channel.messagesSent
                sum.bytesSent += channel.bytesSent
                sum.messagesDropped += channel.messagesDropped
                sums[key] = sum
            }
        }
        var messages = PrometheusMetricFamily(name: "sluice_datachannel_messages_total",
                                              help: "Data channel messages the server received from (direction received) or sent to (sent) the handles' peers.",
                                              kind: .counter)
        var bytes = PrometheusMetricFamily(name: "sluice_datachannel_bytes_total",
                                           help: "Data channel message bytes, as for messages.", kind: .counter)
        var dropped = PrometheusMetricFamily(name: "sluice_datachannel_messages_dropped_total",
                                             help: "Data channel messages dropped (rate limit, too large, or a receiver's full backlog).",
                                             kind: .counter)
        var open = PrometheusMetricFamily(name: "sluice_datachannel_channels", help: "Open data channels.", kind: .gauge)
        var counts: [Key: Int] = [:]
        for handle in handles {
            for channel in handle.channels {
                counts[Key(stream: handle.stream, role: handle.role.rawValue, label: channel.label), default: 0] += 1
            }
        }
        for key in sums.keys.sorted() {
            guard let sum = sums[key] else { continue }
            let base: [(name: String, value: String)] = [("stream", key.stream), ("role", key.role), ("label", key.label)]
            messages.add(sum.messagesReceived, labels: base + [("direction", "received")])
            messages.add(sum.messagesSent, labels: base + [("direction", "sent")])
            bytes.add(sum.bytesReceived, labels: base + [("direction", "received")])
            bytes.add(sum.bytesSent, labels: base + [("direction", "sent")])
            dropped.add(sum.messagesDropped, labels: base)
            open.add(counts[key] ?? 0, labels: base)
        }
        return [messages, bytes, dropped, open]
    }
}
