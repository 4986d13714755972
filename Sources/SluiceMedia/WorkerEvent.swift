/// What a worker reports to the control plane, queued and drained on the control thread.
enum WorkerEvent: Sendable {
    /// DTLS is up and the first RTP packet arrived (publish).
    case publishing(StreamHandle)
    /// The first packet went to this player (again, after a publisher returned).
    case playing(StreamHandle)
    case failed(StreamHandle, info: String)
    case streamEvent(StreamHandle, type: String, by: String?, data: [String: StreamEventValue])
    /// An event for the publisher and every player of a stream (`resize`).
    case streamWideEvent(String, type: String, by: String?, data: [String: StreamEventValue])
}
