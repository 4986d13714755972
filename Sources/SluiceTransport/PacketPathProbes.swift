/// The test probes of the packet path (`SRTPSession.libraryCallProbe`,
/// `WebRTCTransport.rtpPathProbe`), kept in memory behind a `let` pointer rather than in
/// global `var`s: a global `var` is read under a dynamic exclusivity check (swift_beginAccess,
/// about 70 instructions) every time, and these are read for every packet; memory behind a
/// pointer is not checked. Sessions and transports copy the pointer once, at init.
///
/// Set only by tests, before traffic starts; nil (no probe) otherwise. Never freed: two slots
/// for the process's life.
public enum PacketPathProbes {
    public typealias Probe = @convention(c) (Int32) -> Void

    /// The slot of `SRTPSession.libraryCallProbe`: 1 before and 0 after each libsrtp RTP call.
    public static let libraryCall = 0
    /// The slot of `WebRTCTransport.rtpPathProbe`: 1 before and 0 after each incoming RTP packet.
    public static let rtpPath = 1

    nonisolated(unsafe) public static let slots: UnsafeMutablePointer<Probe?> = {
        let slots = UnsafeMutablePointer<Probe?>.allocate(capacity: 2)
        slots.initialize(repeating: nil, count: 2)
        return slots
    }()
}
