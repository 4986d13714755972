/// Headroom libwebsockets needs before the payload of every WebSocket write: LWS_PRE,
/// which is `_LWS_PAD(4 + 10 + 2)` in lws-write.h (4.1.6).
///
/// Computed here rather than through CShims' `sluice_LWS_PRE()`: CShims.h defines
/// _GNU_SOURCE, so its glibc `fd_set` differs from the one CWebsockets and CDispatch see,
/// and clang refuses to load both into one compile job.
enum LWSPre {
    static let size: Int = {
        #if arch(x86_64)
        let padSize = 16
        #else
        let padSize = MemoryLayout<UnsafeRawPointer>.size
        #endif
        let unpadded = 4 + 10 + 2
        return unpadded % padSize == 0 ? unpadded : unpadded + (padSize - unpadded % padSize)
    }()
}
