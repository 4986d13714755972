import SluiceVocabulary

/// One receiver of a router's packets: a player's `Consumer`, a relay link's `LinkConsumer`,
/// a recording's `RecordingTap`, and the observers that come next (an audio level or active
/// speaker observer, as mediasoup's `RtpObserver` is fed by its router). The router keeps one
/// list of them and calls each the same way; none is told apart from the others.
///
/// A class to subclass rather than a protocol: the fan-out calls every sink for every packet,
/// and Swift copies (retains and releases) a protocol existential taken from an array for
/// each call, where a class reference goes through `Unmanaged` unretained. A consumer is its
/// transport's weak delegate, so its count lives in a side table, where every retain takes
/// the slow path: a retain and a release per player per packet (docs/design.md, hot-path
/// rule 9). What a subclass does not override does nothing.
///
/// Every call comes from the router, on the stream's worker thread.
class StreamSink {
    /// The stream as this sink may see it: reads and key-frame requests (`StreamUpstream`).
    /// Set by the router that holds the sink.
    weak var upstream: (any StreamUpstream)?

    /// One packet of the stream, in the fan-out (the packet path: no allocation, no lock).
    /// A key frame asked for here waits in the router until the source's call returns.
    func forward(_ packet: borrowing ForwardedPacket) {}

    /// The stream's source came (`present`) or went; also called when the sink joins.
    func sourceChanged(present: Bool) {}

    /// The stream-wide mute of `kind` changed: the router stops or resumes its packets, and
    /// the next one restarts the sink's output of that kind.
    func streamMuteChanged(_ kind: MediaKind) {}

    /// The source measured its layers anew (`StreamUpstream.measuredLayers`, about once a
    /// second, off the packet path).
    func layersMeasured(now: UInt64) {}

    /// The publisher's sender report of `kind` (video: of `layer`).
    func senderReport(kind: MediaKind, layer: Int, ntp: UInt64, rtpTimestamp: UInt32) {}

    /// The video layers this sink needs now, bit i for layer i (a player's current and target
    /// layer); 0 for a sink that takes whatever comes.
    var wantedVideoLayers: UInt32 { 0 }
}
