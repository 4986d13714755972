// Data channels of a publish or play (docs/protocol.md section 6, Data channels). A
// publisher's messages reach every player's channel of the same label; a player's reach the
// publisher.

// The data channels a publish or play asked for, made before its offer so the offer has an
// m=application line. A label alone is a reliable, ordered channel.
export function openDataChannels(stream, wanted) {
  for (const entry of wanted || []) {
    const spec = typeof entry === 'string' ? {label: entry} : entry;
    const init = {};
    for (const key of ['ordered', 'maxRetransmits', 'maxPacketLifeTime', 'protocol']) {
      if (spec[key] !== undefined) init[key] = spec[key];
    }
    stream.dataChannels.set(spec.label, stream.peerConnection.createDataChannel(spec.label, init));
  }
}
