import SluiceTransport

/// The RFC 4571 framing of a TCP media connection (ICE-TCP): arbitrary bytes as the stream,
/// cut into reads where the first input byte says. Decoding in one read and in pieces must give
/// the same frames (and the same oversize verdict), every frame within the limit; the frames,
/// queued again through a `TCPSendQueue` and drained in odd-sized writes, must decode to
/// themselves. Nothing may trap.
let maxFrameLength = 1500
let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: maxFrameLength, alignment: 16)

/// Decodes `stream` cut into pieces of the given sizes (cycled); nil sizes: one read.
func decode(_ stream: [UInt8], pieces: [Int]?) -> (frames: [[UInt8]], tooLong: Int?) {
    var decoder = RFC4571FrameDecoder(maxFrameLength: maxFrameLength)
    var frames: [[UInt8]] = []
    var start = 0
    var turn = 0
    while start < stream.count {
        var size = stream.count - start
        if let pieces, !pieces.isEmpty { size = min(size, max(1, pieces[turn % pieces.count])) }
        turn += 1
        var piece = Array(stream[start..<(start + size)])
        start += size
        let verdict: Int? = piece.withUnsafeMutableBytes { input in
            var offset = 0
            while true {
                switch decoder.nextFrame(in: input, offset: &offset, storage: storage) {
                case .frame(let frame):
                    precondition(!frame.isEmpty && frame.count <= maxFrameLength, "frame outside the limit")
                    frames.append(Array(frame))
                case .needMoreInput:
                    precondition(offset == input.count, "input left unread")
                    return nil
                case .frameTooLong(let length):
                    precondition(length > maxFrameLength, "a frame within the limit was refused")
                    return length
                }
            }
        }
        if let verdict { return (frames, verdict) }
    }
    return (frames, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRFC4571(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = Int(data[0])
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = decode(stream, pieces: nil)
    let pieces = [1 + control % 7, 1 + control / 7 % 13, 1 + control % 3]
    let split = decode(stream, pieces: pieces)
    precondition(whole.frames == split.frames && whole.tooLong == split.tooLong, "split reads decode differently")

    let queue = TCPSendQueue(capacity: 4096)
    var reframed: [UInt8] = []
    let limit = 1 + control % 97
    for frame in whole.frames {
        if !frame.withUnsafeBytes({ queue.enqueue($0) }) {
            while !queue.isEmpty {
                _ = queue.drain { a, b in
                    let first = min(a.count, limit)
                    reframed += a[0..<first]
                    let second = min(b.count, limit - first)
                    if second > 0 { reframed += b[0..<second] }
                    return first + second
                }
            }
            precondition(frame.withUnsafeBytes { queue.enqueue($0) }, "an empty queue refused a frame")
        }
    }
    while !queue.isEmpty { _ = queue.drain { a, b in reframed += a; reframed += b; return a.count + b.count } }
    precondition(decode(reframed, pieces: pieces).frames == whole.frames, "queued frames do not decode to themselves")
    return 0
}
