import SluiceVocabulary
@testable import SluiceRecord

/// Builds RecordedPackets for the assembly tests.
func videoPacket(_ sequence: UInt16, _ timestamp: UInt32, marker: Bool = false, _ payload: [UInt8],
                 at arrival: UInt64 = 0) -> RecordedPacket {
    RecordedPacket(kind: .video, sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: payload,
                   arrivalMicros: arrival)
}

func audioPacket(_ sequence: UInt16, _ timestamp: UInt32, _ payload: [UInt8] = [0x78, 0x01, 0x02],
                 at arrival: UInt64 = 0) -> RecordedPacket {
    RecordedPacket(kind: .audio, sequenceNumber: sequence, timestamp: timestamp, marker: false, payload: payload,
                   arrivalMicros: arrival)
}

/// SPS of a 720x404 baseline stream with emulation prevention bytes (mux.js test vector, as in
/// SluiceRTPTests).
let spsNAL720x404: [UInt8] = [
    0x67, 0x42, 0xc0, 0x1e, 0xd9, 0x00, 0xb4, 0x35, 0xf9, 0xe1, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00,
    0x00, 0x03, 0x00, 0x3c, 0x0f, 0x16, 0x2e, 0x48,
]

/// A sequence header OBU payload from libaom's aomenc at 1280x720 (as in SluiceRTPTests).
let av1SequenceHeader1280x720: [UInt8] = [0x00, 0x00, 0x00, 0x2d, 0x4c, 0xff, 0xb3, 0xcd, 0xaf, 0x90, 0x04]

/// VP8 packets of one frame: the first opens partition 0 (S=1) with the frame tag (P bit clear
/// on a key frame, then the 640x480 key frame header); the others continue it. Short
/// descriptors (no X); each packet carries `body` after its header.
func vp8Frame(_ timestamp: UInt32, sequences: [UInt16], key: Bool, at arrival: UInt64 = 0,
              body: [UInt8] = [0xaa, 0xbb]) -> [RecordedPacket] {
    sequences.enumerated().map { index, sequence in
        var payload: [UInt8]
        if index == 0 {
            payload = [0x10] + (key ? [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01] : [0x01, 0x00, 0x00])
        } else {
            payload = [0x00]
        }
        payload += body
        return videoPacket(sequence, timestamp, marker: index == sequences.count - 1, payload, at: arrival)
    }
}
