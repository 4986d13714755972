import SluiceRTP

/// Keeps a player's VP8 picture ids and TL0PICIDX continuous when its source changes (a
/// simulcast layer switch, a new publisher): each source numbers its pictures on its own.
/// It decides from the source's descriptor (parsed once, by the producer); the sender applies
/// the result to the outgoing copy (`VP8Rewrite`).
struct VP8Munger {
    private var pictureIDOffset = 0
    private var tl0Offset = 0
    private var lastPictureID: Int?
    private var lastTL0: Int?
    private var restarting = true

    private var lastSkippedPicture = -1

    /// A whole picture the player does not get (a higher temporal layer): later pictures move
    /// down by one so the player sees consecutive picture ids. Called for each of its packets.
    mutating func skip(_ descriptor: VP8PayloadDescriptor) {
        guard let picture = descriptor.pictureID else { return }
        let incoming = Int(picture)
        guard incoming != lastSkippedPicture, !restarting else { return }
        lastSkippedPicture = incoming
        pictureIDOffset = (pictureIDOffset + 1) % (descriptor.hasLongPictureID ? 0x8000 : 0x80)
    }

    /// The next packet starts a new source.
    mutating func restart() {
        restarting = true
    }

    /// The values the outgoing copy of a packet with `descriptor` carries.
    @inline(__always)
    mutating func map(_ descriptor: VP8PayloadDescriptor) -> VP8Rewrite {
        var rewrite = VP8Rewrite(descriptor: descriptor)
        if let picture = descriptor.pictureID {
            let modulus = descriptor.hasLongPictureID ? 0x8000 : 0x80
            let incoming = Int(picture)
            if restarting {
                let next = ((lastPictureID ?? incoming - 1) + 1) % modulus
                pictureIDOffset = (incoming - next + modulus) % modulus
            }
            let out = (incoming - pictureIDOffset + modulus) % modulus
            lastPictureID = out
            rewrite.pictureID = Int32(out)
        }
        if let tl0 = descriptor.tl0PicIdx {
            let incoming = Int(tl0)
            if restarting {
                let next = ((lastTL0 ?? incoming - 1) + 1) & 0xff
                tl0Offset = (incoming - next + 256) & 0xff
            }
            let out = (incoming - tl0Offset + 256) & 0xff
            lastTL0 = out
            rewrite.tl0PicIdx = Int16(out)
        }
        restarting = false
        return rewrite
    }

    /// Decides and applies in one step, on a payload that is already the outgoing copy.
    /// Returns the values written (-1 where the descriptor has none).
    @discardableResult
    mutating func rewrite(_ payload: UnsafeMutableRawBufferPointer) -> (pictureID: Int32, tl0PicIdx: Int16) {
        guard let descriptor = VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(payload)) else { return (-1, -1) }
        let rewrite = map(descriptor)
        rewrite.apply(to: payload)
        return (rewrite.pictureID, rewrite.tl0PicIdx)
    }

    /// Writes recorded values into a retransmitted copy.
    static func write(pictureID: Int32, tl0PicIdx: Int16, into payload: UnsafeMutableRawBufferPointer) {
        guard let descriptor = VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(payload)) else { return }
        VP8Rewrite(descriptor: descriptor, pictureID: pictureID, tl0PicIdx: tl0PicIdx).apply(to: payload)
    }
}
