import SluiceClient
import SluiceRTP
import SluiceTransport
import SluiceWire

/// `--player-receive headers`: a receiver the player's UDP path is bound to instead of its
/// transport. SRTP (RFC 3711) encrypts the payload only: the RTP header, with its sequence
/// number, SSRC, payload type and header extensions, travels in clear. So an RTP packet is
/// counted from its header here and goes no further: no SRTP unprotect, no authentication
/// check, no payload read. Everything else (STUN, DTLS, RTCP) goes to the transport as
/// before, so ICE, DTLS and consent run as usual and the server cannot tell the difference.
///
/// UDP only: a TCP connection keeps the receiver it was first bound to. Worker thread.
final class PlayerHeaderReceiver: DatagramReceiver {
    private let transport: WebRTCTransport
    private let probe: PlayerProbe
    private let reader: HeaderPacketReader

    private init(transport: WebRTCTransport, probe: PlayerProbe, answer: ServerAnswer) {
        self.transport = transport
        self.probe = probe
        reader = HeaderPacketReader(answer: answer)
    }

    /// Binds the connection's UDP path to a new receiver (after `setRemoteDescription`, before
    /// DTLS brings media).
    static func install(on connection: PeerConnection, probe: PlayerProbe) async throws -> PlayerHeaderReceiver {
        guard let answer = connection.answer else {
            throw PeerConnectionError.transport("--player-receive headers: no answer yet")
        }
        return try await withCheckedThrowingContinuation { continuation in
            connection.perform {
                guard let transport = connection.packageTransport, let remote = transport.parameters.remoteCandidate,
                      !transport.parameters.remoteCandidateIsTCP else {
                    continuation.resume(throwing: PeerConnectionError.transport(
                        "--player-receive headers needs the connection's UDP transport"))
                    return
                }
                let receiver = PlayerHeaderReceiver(transport: transport, probe: probe, answer: answer)
                connection.worker.bind(connection.worker.udpPath(to: remote, via: connection.socket), to: receiver)
                continuation.resume(returning: receiver)
            }
        }
    }

    /// Forgets the receiver's route (before the connection closes).
    func uninstall(from connection: PeerConnection) {
        connection.perform { connection.worker.unregister(receiver: self) }
    }

    func receive(_ datagram: UnsafeMutableRawBufferPointer, from path: MediaPath, now: UInt64) {
        guard transport.isConnected, reader.read(datagram, now: now, into: probe) else {
            transport.receive(datagram, from: path, now: now)
            return
        }
    }

    func pathDidClose(_ path: MediaPath) {
        transport.pathDidClose(path)
    }

}
