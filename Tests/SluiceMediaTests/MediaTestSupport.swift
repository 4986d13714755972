import SluiceVocabulary
import SluiceTransport
import SluiceWire
@testable import SluiceMedia

/// Endpoints for the producer and router tests: a real worker (bound to 127.0.0.1, never
/// started) and unconnected transports, so packets are handed to the media objects directly.
enum MediaTestSupport {
    static let security = try! DTLSSecurity.make()

    static func worker() throws -> MediaWorker {
        try MediaWorker(index: 0, bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, poolCapacity: 256)
    }

    static func videoTrack(rids: [String] = [], payloadType: UInt8 = 96, ridID: UInt8? = nil) -> TrackParameters {
        var track = TrackParameters(kind: .video, mid: "1", codecName: "VP8", fmtp: "", payloadType: payloadType,
                                    rtxPayloadType: nil, clockRate: 90_000,
                                    extensions: NegotiatedExtensions(rid: ridID), remoteSSRCs: [], remoteRTXSSRCs: [],
                                    localSSRC: 0x5000, feedback: .init(nack: true, pli: true))
        track.simulcast = rids.map { SimulcastLayer(rid: $0) }
        return track
    }

    static func endpoint(_ role: StreamRole, video: TrackParameters, handle: String = "h") -> EndpointParameters {
        EndpointParameters(handle: handle, stream: "s", role: role, audio: nil, video: video,
                           transport: TransportParameters(localUfrag: "lu", localPassword: "lp", remoteUfrag: "ru",
                                                          remotePassword: "rp", remoteFingerprintAlgorithm: "sha-256",
                                                          remoteFingerprint: "00", dtlsRole: .server,
                                                          consentTimeoutMicros: 10_000_000))
    }

    static func transport(_ worker: MediaWorker, _ endpoint: EndpointParameters) throws -> WebRTCTransport {
        try WebRTCTransport(worker: worker, security: security, parameters: endpoint.transport)
    }

    /// A VP8 RTP packet: descriptor with a picture id and TID; a key frame carries its size.
    static func vp8Packet(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, keyFrame: Bool = false,
                          size: (Int, Int) = (640, 360), tid: UInt8 = 0, payloadType: UInt8 = 96) -> [UInt8] {
        var bytes: [UInt8] = [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xff),
                              UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xff),
                              UInt8((timestamp >> 8) & 0xff), UInt8(timestamp & 0xff),
                              UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xff), UInt8((ssrc >> 8) & 0xff), UInt8(ssrc & 0xff)]
        bytes += [0x90, 0xa0, UInt8(0x80 | (sequence >> 8) & 0x7f), UInt8(sequence & 0xff), tid << 6]
        if keyFrame {
            bytes += [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, UInt8(size.0 & 0xff), UInt8(size.0 >> 8),
                      UInt8(size.1 & 0xff), UInt8(size.1 >> 8)]
        } else {
            bytes += [0x11, 0x02, 0x00, 0x00]
        }
        return bytes
    }
}
