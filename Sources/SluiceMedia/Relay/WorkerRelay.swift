import SluiceRTP
import SluiceTransport
import SluiceWire
import Synchronization

/// One worker's end of the cross-worker fan-out (docs/design.md "One stream on every
/// worker"). A stream is received on its home worker; a player may sit on any worker. The
/// home router hands each packet once to every other worker with players of the stream:
/// a `RelayEntry` naming the buffer that holds the packet (stored once, reference counted in
/// the home's `SharedPackets`) goes into the bounded lock-free queue from the home to that
/// worker, and the worker is woken once per loop turn. Each worker drains its queues in
/// `pump` and feeds the entries to its `RelayIngress`es, whose routers then do the per-player
/// work (munging, SRTP, sending) on that worker's own thread.
///
/// Everything but the queues' indices and the reference counts is confined to the worker's
/// thread. Control between workers (a worker starts or stops relaying a stream, the home's
/// snapshots, key-frame requests) goes through the workers' inboxes: a few per second, not
/// per packet.
final class WorkerRelay: WorkerInlet {
    /// Entries taken per queue per loop turn, so one busy stream cannot starve the sockets.
    static let pumpBudget = 1024

    let index: Int
    unowned let worker: MediaWorker
    /// `PacketPathProbes.slots`: the allocation test counts what delivering a packet costs
    /// here as it counts an incoming packet's path on the home worker.
    private let probes = PacketPathProbes.slots

    /// Per-packet state in memory the relay owns (docs/design.md hot-path rule 8).
    private struct State {
        /// outgoing[j]: this worker to worker j (nil for itself).
        var outgoing: [RelayQueue?] = []
        /// incoming[j]: worker j to this one (nil for itself).
        var incoming: [RelayQueue?] = []
        /// Workers handed packets since the last wake-up (bit j: worker j).
        var pendingWake: UInt64 = 0
        /// The ingresses of the streams this worker relays, by `RelayKey.slot`.
        var ingresses: [RelayIngress?] = []
        var generations: [UInt16] = []
        var freeSlots: [Int] = []
        /// Every worker's relay (this one's too), for wake-ups once per loop turn and commands.
        var peers: [Weak] = []
    }
    private let state = OwnedState(State())
    struct Weak { weak var relay: WorkerRelay? }

    /// Packets this worker could not hand over: the receiving worker's queue was full, or no
    /// buffer was free to copy an unstored packet into.
    let handDrops = Atomic<UInt64>(0)
    /// Packets delivered to this worker's ingresses, and packets for an ingress that had gone.
    let delivered = Atomic<UInt64>(0)
    let stale = Atomic<UInt64>(0)
    /// Packets handed to other workers (any thread: the queues' own counts; the queue list is
    /// written once, by `link`).
    var handed: Int { state.outgoing.reduce(0) { $0 + ($1?.pushed ?? 0) } }

    /// Called on the home worker with a relaying worker's key-frame requests for `stream`.
    var keyFramesRequested: (String, KeyFrameRequests) -> Void = { _, _ in }
    /// Called on the home worker with the video layers a relaying worker's players of
    /// `stream` need (stream, that worker's index, mask).
    var wantedLayersArrived: (String, Int, UInt32) -> Void = { _, _, _ in }
    /// Called on a relaying worker with the home's news of a stream.
    var snapshotArrived: (RelayIngress, SourceSnapshot, Bool) -> Void = { _, _, _ in }

    init(index: Int, worker: MediaWorker) {
        self.index = index
        self.worker = worker
    }

    /// Gives every pair of workers its queue, each relay its peers, and each worker its
    /// inlet. Once, before any stream, from the control thread (the workers only read what
    /// this writes after their inbox hands them a command, which orders it).
    static func link(_ relays: [WorkerRelay]) {
        let count = relays.count
        precondition(count <= 64, "at most 64 media workers")
        for from in relays {
            from.state.outgoing = Array(repeating: nil, count: count)
            from.state.incoming = Array(repeating: nil, count: count)
            from.state.peers = relays.map { Weak(relay: $0) }
        }
        for from in 0..<count {
            for to in 0..<count where to != from {
                let queue = RelayQueue()
                relays[from].state.outgoing[to] = queue
                relays[to].state.incoming[from] = queue
            }
        }
        for relay in relays { relay.worker.inlet = relay }
    }

    // MARK: Home side

    /// Hands one packet to every relaying worker of its stream: the stored buffer by
    /// reference, or (audio, or a packet the pool had no room to store) one copy for all.
    @inline(__always)
    func hand(_ packet: borrowing ForwardedPacket, to targets: [RelayTarget]) {
        let shared = worker.shared
        let bytes = packet.packet.buffer
        guard bytes.count <= Int(UInt16.max) else { return }
        var buffer = packet.stored
        let copied = buffer < 0
        if copied {
            guard let fresh = shared.take() else {
                handDrops.add(UInt64(targets.count), ordering: .relaxed)
                return
            }
            shared.pool.pointer(fresh).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            buffer = fresh
        }
        var entry = RelayEntry()
        entry.buffer = buffer
        entry.length = UInt16(bytes.count)
        entry.layer = UInt8(truncatingIfNeeded: packet.layer)
        entry.clockRate = packet.clockRate
        var flags: UInt8 = packet.kind == .video ? RelayEntry.video : 0
        if packet.isKeyFrame { flags |= RelayEntry.keyFrame }
        if let tid = packet.temporalLayer {
            flags |= RelayEntry.hasTemporalLayer
            entry.temporalLayer = tid
        }
        if let level = packet.audioLevel {
            flags |= RelayEntry.hasAudioLevel
            entry.audioLevel = level
        }
        if packet.vp8 != nil { flags |= RelayEntry.vp8 }
        if packet.red != nil { flags |= RelayEntry.red }
        entry.flags = flags
        entry.dependency = packet.dependency
        for target in targets {
            guard let queue = state.outgoing[target.worker] else { continue }
            entry.key = target.key.raw
            shared.retain(buffer)
            if queue.push(entry) {
                state.pendingWake |= 1 << UInt64(target.worker)
            } else {
                shared.unretain(buffer)
                handDrops.add(1, ordering: .relaxed)
            }
        }
        if copied { shared.release(buffer) }
    }

    /// The home's news of a stream, to one relaying worker (through its inbox).
    func sendSnapshot(_ snapshot: SourceSnapshot, to target: RelayTarget, measured: Bool) {
        guard let peer = state.peers[target.worker].relay else { return }
        peer.worker.execute { [weak peer] in
            guard let peer, let ingress = peer.ingress(target.key) else { return }
            peer.snapshotArrived(ingress, snapshot, measured)
        }
    }

    // MARK: Relaying side

    /// A new ingress of `stream` from `home` (this worker's thread).
    func openIngress(stream: String, home: Int) -> RelayIngress? {
        guard let homeRelay = state.peers[home].relay else { return nil }
        var s = state.pointee
        let slot: Int
        if let free = s.freeSlots.popLast() {
            slot = free
        } else {
            guard s.ingresses.count < 0xffff else { return nil }
            slot = s.ingresses.count
            s.ingresses.append(nil)
            s.generations.append(0)
        }
        s.generations[slot] &+= 1
        let key = RelayKey(slot: slot, generation: s.generations[slot])
        let ingress = RelayIngress(stream: stream, key: key, home: home, homePackets: homeRelay.worker.shared) {
            [weak homeRelay] requests in
            guard let homeRelay else { return }
            homeRelay.worker.execute { [weak homeRelay] in homeRelay?.keyFramesRequested(stream, requests) }
        }
        let from = index
        ingress.sendWanted = { [weak homeRelay] mask in
            guard let homeRelay else { return }
            homeRelay.worker.execute { [weak homeRelay] in homeRelay?.wantedLayersArrived(stream, from, mask) }
        }
        s.ingresses[slot] = ingress
        state.pointee = s
        return ingress
    }

    /// Forgets an ingress: packets still in flight for it are given back as they arrive.
    func closeIngress(_ ingress: RelayIngress) {
        guard let current = self.ingress(ingress.key), current === ingress else { return }
        state.ingresses[ingress.key.slot] = nil
        state.freeSlots.append(ingress.key.slot)
        ingress.releasePackets()
    }

    func ingress(_ key: RelayKey) -> RelayIngress? {
        guard state.ingresses.indices.contains(key.slot), state.generations[key.slot] == key.generation
        else { return nil }
        return state.ingresses[key.slot]
    }

    // MARK: Loop turn

    func pump(now: UInt64) -> Bool {
        var more = false
        let count = state.incoming.count
        for from in 0..<count {
            guard let queue = state.incoming[from] else { continue }
            var taken = 0
            let probe = probes[PacketPathProbes.rtpPath]
            probe?(1)
            while taken < Self.pumpBudget, let entry = queue.pop() {
                taken += 1
                deliver(entry, from: from, now: now)
            }
            probe?(0)
            if taken > 0 { delivered.add(UInt64(taken), ordering: .relaxed) }
            if taken == Self.pumpBudget { more = true }
        }
        wakePending()
        return more
    }

    @inline(__always)
    private func deliver(_ entry: RelayEntry, from: Int, now: UInt64) {
        let key = RelayKey(entry.key)
        if let ingress = ingress(key), ingress.isAttached {
            ingress.deliver(entry, now: now)
        } else {
            stale.add(1, ordering: .relaxed)
            state.peers[from].relay?.worker.shared.releaseRemote(entry.buffer)
        }
    }

    /// One wake-up per loop turn for each worker handed packets in it.
    private func wakePending() {
        var bits = state.pendingWake
        guard bits != 0 else { return }
        state.pendingWake = 0
        while bits != 0 {
            let worker = bits.trailingZeroBitCount
            bits &= bits - 1
            state.peers[worker].relay?.worker.wake()
        }
    }
}
