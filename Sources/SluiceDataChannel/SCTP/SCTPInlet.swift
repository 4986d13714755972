import Synchronization
import SluiceWire

/// The worker's end of one association: what the transport hands it (decrypted DTLS
/// application data, one SCTP packet per record) is checked here, on the worker thread, and
/// copied to the SCTP thread. Nothing here touches usrsctp or blocks.
///
/// Bounds, so that a peer's SCTP costs only itself: a packet that is not well formed
/// (`SCTPPacketCheck`) is dropped; INIT chunks pass at most `initsPerSecond` (a flood of them
/// would make usrsctp answer each with a cookie); and at most `maxQueuedBytes` wait for the
/// SCTP thread, beyond which packets are dropped (SCTP retransmits what mattered).
// @unchecked: the worker and the SCTP thread share only `queued` and the INIT budget, which are atomics; the rest is `let`.
final class SCTPInlet: @unchecked Sendable {
    static let maxQueuedBytes = 4 << 20
    static let initsPerSecond = 4.0

    let id: Int
    let localPort: UInt16
    let remotePort: UInt16
    unowned let stack: SCTPStack
    /// Bytes handed to the SCTP thread and not yet fed to usrsctp (both threads).
    let queued = Atomic<Int>(0)

    // Worker thread only.
    private var initTokens = SCTPInlet.initsPerSecond
    private var lastInitMicros: UInt64 = 0
    private(set) var rejectedPackets: UInt64 = 0
    private(set) var droppedInits: UInt64 = 0
    private(set) var droppedOverflow: UInt64 = 0
    private var logged = false

    init(id: Int, localPort: UInt16, remotePort: UInt16, stack: SCTPStack) {
        self.id = id
        self.localPort = localPort
        self.remotePort = remotePort
        self.stack = stack
    }

    /// One SCTP packet from the transport (worker thread; the bytes last only for the call).
    func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        do {
            let check = try SCTPPacketCheck(packet: bytes, localPort: localPort, remotePort: remotePort)
            if check.initChunks > 0 && !takeInitToken(now: now) {
                droppedInits += 1
                return
            }
        } catch {
            rejectedPackets += 1
            if !logged {
                logged = true
                stack.logLine("data channel \(id): dropped an SCTP packet: \(error) (further ones are counted, not logged)")
            }
            return
        }
        guard queued.load(ordering: .relaxed) + bytes.count <= Self.maxQueuedBytes else {
            droppedOverflow += 1
            return
        }
        queued.add(bytes.count, ordering: .relaxed)
        stack.deliver(id, Array(bytes))
    }

    private func takeInitToken(now: UInt64) -> Bool {
        if lastInitMicros != 0, now > lastInitMicros {
            initTokens = min(Self.initsPerSecond, initTokens + Double(now - lastInitMicros) / 1_000_000 * Self.initsPerSecond)
        }
        lastInitMicros = now
        guard initTokens >= 1 else { return false }
        initTokens -= 1
        return true
    }
}
