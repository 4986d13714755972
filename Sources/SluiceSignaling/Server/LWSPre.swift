/// Headroom libwebsockets needs before the payload of every WebSocket write: LWS_PRE,
/// which is `_LWS_PAD(4 + 10 + 2)` in lws-write.h (4.1.6).
///
/// Computed in Swift from that definition: Swift cannot import the macro. It was written
/// so when CShims.h still defined _GNU_SOURCE and loading CShims next to CWebsockets failed
/// on two glibc `fd_set` declarations; CShims.h no longer does, and CShims now holds only
/// the media worker's system calls.
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
