import CWebsockets

/// One upgraded `/ws` connection: reassembles incoming fragments into messages and queues
/// outgoing frames, one per writeable callback. Service thread only.
final class WebSocketConnection: SessionOutput {
    private enum Outgoing {
        /// LWSPre.size bytes of headroom, then the payload.
        case text([UInt8])
        case close(code: UInt16, reason: String)
    }

    /// A client that stops reading is dropped once this much waits for it.
    static let maxQueuedBytes = 8 << 20

    let wsi: OpaquePointer
    private let maxMessageBytes: Int
    private var queuedBytes = 0
    private(set) var droppedAsSlow = false
    var session: RPCSession?

    private var queue: [Outgoing] = []
    private var queueHead = 0
    private var closeQueued = false

    private var message: [UInt8] = []
    private var inMessage = false
    private var messageIsBinary = false
    /// Bytes seen of a message over the limit, which is dropped as it arrives.
    private var discardedBytes: Int?

    init(wsi: OpaquePointer, maxMessageBytes: Int) {
        self.wsi = wsi
        self.maxMessageBytes = maxMessageBytes
    }

    // MARK: SessionOutput

    func send(text: String) {
        guard !closeQueued else { return }
        var frame = [UInt8](repeating: 0, count: LWSPre.size)
        frame.append(contentsOf: text.utf8)
        queuedBytes += frame.count
        if queuedBytes > WebSocketConnection.maxQueuedBytes {
            // Nothing more can reach it, not even a close frame: drop the socket.
            closeQueued = true
            droppedAsSlow = true
            queue.removeAll()
            queueHead = 0
            queuedBytes = 0
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            return
        }
        queue.append(.text(frame))
        lws_callback_on_writable(wsi)
    }

    func close(code: UInt16, reason: String) {
        guard !closeQueued else { return }
        closeQueued = true
        queue.append(.close(code: code, reason: reason))
        lws_callback_on_writable(wsi)
    }

    var hasQueuedOutput: Bool { queueHead < queue.count }

    /// Writes the next queued frame. Returns false when the connection must be closed
    /// (after a queued close, or a failed write): the callback then returns -1.
    func writeNext() -> Bool {
        guard queueHead < queue.count else { return true }
        let next = queue[queueHead]
        queue[queueHead] = .text([])
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        switch next {
        case .text(var frame):
            queuedBytes -= frame.count
            let payloadLength = frame.count - LWSPre.size
            let written = frame.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return -1 }
                return lws_write(wsi, base.advanced(by: LWSPre.size).assumingMemoryBound(to: UInt8.self),
                                 payloadLength, LWS_WRITE_TEXT)
            }
            // lws keeps any unsent remainder itself and calls back when it is drained.
            guard written >= 0 else { return false }
            if hasQueuedOutput { lws_callback_on_writable(wsi) }
            return true
        case .close(let code, let reason):
            var reasonBytes = Array(reason.utf8.prefix(123))
            reasonBytes.withUnsafeMutableBufferPointer { bytes in
                lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), bytes.baseAddress, bytes.count)
            }
            return false
        }
    }

    // MARK: Incoming

    /// A complete message, or nil while fragments are still coming.
    enum Received {
        case text(UnsafeRawBufferPointer)
        case binary
        case oversized(Int)
    }

    /// Feeds one chunk; calls `body` once the message is complete. The buffer given to
    /// `body` is valid only during the call.
    func receive(_ chunk: UnsafeRawBufferPointer, isFinal: Bool, isBinary: Bool, _ body: (Received) -> Void) {
        if !inMessage {
            inMessage = true
            messageIsBinary = isBinary
            discardedBytes = nil
            message.removeAll(keepingCapacity: message.capacity <= 65_536)
        }
        if let discarded = discardedBytes {
            discardedBytes = discarded + chunk.count
        } else if message.count + chunk.count > maxMessageBytes {
            discardedBytes = message.count + chunk.count
            message = []
        } else if !messageIsBinary {
            message.append(contentsOf: chunk)
        }
        guard isFinal else { return }
        inMessage = false
        if let discarded = discardedBytes {
            body(.oversized(discarded))
        } else if messageIsBinary {
            body(.binary)
        } else {
            message.withUnsafeBytes { body(.text($0)) }
        }
        if message.capacity > 65_536 { message = [] }
    }
}
