import SluiceRTP

/// What one player gets of one audio packet: Opus in RED (RFC 2198) as RED when it agreed to
/// RED, else the primary block alone as plain Opus; plain Opus as it is. One packet out for
/// each in either way, so the player's sequence numbers stay unbroken.
struct REDForwarding {
    /// The payload type to write.
    let payloadType: UInt8
    /// The bytes of the source payload to send.
    let range: Range<Int>
    /// Sent in RED.
    let sendsRED: Bool
    /// RED to a player whose Opus payload type is not the publisher's: the block headers to
    /// set to the player's (`REDPayload.setBlockPayloadTypes`); 0 leaves them.
    let blocksToRewrite: Int

    @inline(__always)
    init(red: REDPayload?, payloadCount: Int, opusPayloadType: UInt8, redPayloadType: UInt8?) {
        if let red, let redPayloadType {
            payloadType = redPayloadType
            range = 0..<payloadCount
            sendsRED = true
            blocksToRewrite = red.primary.payloadType == opusPayloadType ? 0 : red.count
        } else {
            payloadType = opusPayloadType
            range = red?.primary.range ?? 0..<payloadCount
            sendsRED = false
            blocksToRewrite = 0
        }
    }
}
