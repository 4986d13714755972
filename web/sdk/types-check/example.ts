// A typed page that uses every public call of the SDK, compiled (never run) by
// scripts/check-sdk-types.sh against ../sluice.d.ts: a declaration that drifts from how the
// SDK is used fails the check. It doubles as an example of the API in TypeScript.
import Sluice, {Call, Session, SluiceError, Stream, connect, version} from '/sdk/sluice.mjs';
import type {
  ActiveSpeaker, CallLogPage, CallRecord, ConnectOptions, Constraints, PeerStats, PrecallFigures, PrecallReport,
  ServerDraining, ServerStats, SpeakerSet, StreamEventDetail,
} from '/sdk/sluice.mjs';

const video = document.querySelector('video')!;

// Publish a camera with simulcast and a data channel, play it back at low quality, move it to
// high, mute, read both sides' figures, stop.
async function streams(): Promise<void> {
  const options: ConnectOptions = {appKey: 'defaultApp', timeout: 10000, iceTransportPolicy: 'all'};
  const session: Session = await connect(null, options);
  console.log(version, session.sessionId, session.serverVersion, session.identity, session.status,
              session.iceServers.length);
  session.on('session', ({status, info}) => console.log('session', status, info));
  session.on('streamStatus', (s) => console.log(s.handle, s.stream, s.role, s.status, s.info));
  const offEvents = session.on('streamEvent', (e: StreamEventDetail) => console.log(e.handle, e.type, e.by, e.data));
  session.on('error', (e) => console.log(e.code, e.reason));
  session.on('close', ({code, reason}) => console.log('closed', code, reason));
  session.addEventListener('streamStatus', (e) => console.log((e as CustomEvent).detail));

  const camera = await navigator.mediaDevices.getUserMedia({video: true, audio: true});
  const pub: Stream = await session.publish('cam1', camera, {
    simulcast: true, record: false, custom: {room: 'a'},
    constraints: {audio: true, video: {width: 1280, height: 720, fps: 30, bitrate: 1500}},
    dataChannels: ['chat'],
  });
  const chat = pub.dataChannels.get('chat');
  if (chat) chat.onopen = () => chat.send('hello, players');

  const low: Constraints = {video: {quality: 'low'}};
  const player = await session.play('cam1', {
    constraints: low, wait: true,
    dataChannels: [{label: 'chat', ordered: false, maxRetransmits: 2}],
  });
  video.srcObject = player.mediaStream;
  player.on('streamStatus', (s) => console.log(player.role, player.name, s.status, player.status, player.info));
  player.on('streamEvent', (e) => console.log(e.type, player.wait, player.offerSdp.length, player.answerSdp.length));

  await session.update(player, {video: {quality: 'high', width: 640}});
  await player.update({video: {quality: 'auto'}});
  await session.mute(pub, 'video');
  await session.unmute(pub.handle, 'video');
  await pub.mute('audio');
  await pub.unmute('audio');
  const server: ServerStats = await session.getStats(player);
  const again = await player.getStats();
  const peer: PeerStats = await player.getPeerStats();
  console.log(server.video && server.video.bitrate, again.connectionQuality, peer.video && peer.video.framesDecoded,
              peer.candidatePair && peer.candidatePair.localType, player.peerConnection.connectionState);
  for (const [handle, stream] of session.streams) console.log(handle, stream.session === session);

  console.log(await session.ping(), await session.request<{users: string[]}>('onlineUsers'));
  await pub.stop();
  await session.stop(player);
  offEvents();
  await session.disconnect();
}

// The pre-call test, cancellable.
async function networkTest(session: Session): Promise<PrecallReport | null> {
  const controller = new AbortController();
  try {
    const report = await session.precall({
      seconds: 5, signal: controller.signal,
      onProgress: (figures: PrecallFigures, event) => console.log(event.handle, figures.uplinkKbps, figures.lossUp),
    });
    const publish = report.recommended.publish;
    console.log(report.durationMs, report.quality.level, publish && publish.bitrate, report.recommended.play);
    return report;
  } catch (error) {
    if (error instanceof SluiceError) console.log(error.code, error.reason, error.info, error.data, error.message);
    return null;
  }
}

// Both sides of a call, and the call log.
async function calls(): Promise<void> {
  const camera = await navigator.mediaDevices.getUserMedia({video: true, audio: true});
  const alice = await Sluice.connect({appKey: 'callApp', user: 'alice'});
  const bob = await connect(new URL('ws://127.0.0.1:8080/ws'), {token: 'an.access.token', user: 'bob'});

  bob.on('incomingCall', async (incoming: Call) => {
    console.log(incoming.id, incoming.from, incoming.direction, incoming.video, incoming.audio, incoming.custom);
    if (incoming.from !== 'alice') {
      await incoming.decline();
      return;
    }
    const {callId, publish, play} = await incoming.accept({localStream: camera});
    console.log(callId, publish, play, incoming.publishName, incoming.playName);
  });
  bob.on('callStatus', (c) => console.log(c.callId, c.status, c.endResult, c.publish, c.play));

  const call = await alice.call('bob', {localStream: camera, video: true, audio: false, custom: {topic: 'demo'}});
  call.on('status', ({status, endResult, by, reason}) => console.log(status, endResult, by, reason, call.status));
  call.on('remoteStream', ({stream}) => { video.srcObject = stream; });
  call.on('muted', ({kind, type, by}) => console.log(kind, type, by));
  call.on('unmuted', ({kind}) => console.log(kind));
  call.on('error', (error) => console.log(error.reason));
  call.on('ended', ({endResult, by, reason}) => console.log(endResult, by, reason, call.ended));

  await call.muteVideo();
  await call.unmuteVideo();
  await call.muteAudio();
  await call.unmuteAudio();
  await call.hold();
  await call.unhold();
  console.log(call.localStream, call.remoteStream, call.publisher && call.publisher.handle,
              call.player && call.player.handle, call.to, call.by, call.reason, call.endResult);
  await call.hangup();

  const page: CallLogPage = await alice.callLog({limit: 20, from: Date.now() - 86400000});
  const first: CallRecord | undefined = page.calls[0];
  if (first && page.nextCursor) await alice.callLog({cursor: page.nextCursor, to: first.startedAt});
  console.log(await alice.onlineUsers(), alice.calls.size);
  // The raw request as call(method, params), as before calls.
  console.log(await alice.call<ServerStats>('getStats', {handle: 'h1'}));

  // The active speaker among a room's streams.
  const speakerSet: SpeakerSet = {prefix: 'room1-', names: ['host']};
  await alice.followSpeakers(speakerSet);
  alice.on('activeSpeakers', (speakers: ActiveSpeaker[]) => console.log(speakers.map((s) => `${s.name} ${s.level}`)));
  alice.on('dominantSpeaker', (name: string | null) => console.log(name ?? 'nobody'));
  console.log(alice.activeSpeakers.length, alice.dominantSpeaker);
  await alice.followSpeakers();
  alice.on('serverDraining', async (notice: ServerDraining) => {
    console.log(notice.deadlineMs, notice.servers, alice.draining?.servers.length);
    const moved: Session = await alice.reconnect(notice.servers[0] ?? 'wss://sfu.example.com/ws');
    await moved.disconnect();
  });
}

// The SDK object, by default export or as the classic loader's global; the classes for instanceof.
async function classic(): Promise<void> {
  const sdk = globalThis.Sluice ?? (await globalThis.SluiceReady);
  if (!sdk) return;
  const error = new sdk.SluiceError(1004, 'Stream not found', 'STREAM_NOT_FOUND');
  const parsed = SluiceError.fromRPC({code: 1003, message: 'in use', data: {reason: 'STREAM_NAME_IN_USE'}});
  console.log(sdk.version, error instanceof Error, parsed.reason, sdk.Session === Session, sdk.Stream === Stream,
              sdk.Call === Call, sdk.connect === connect, Sluice.version);
}

streams().then(() => connect({appKey: 'defaultApp'})).then(networkTest).then(calls).then(classic);
