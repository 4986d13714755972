// The pre-call network test (docs/protocol.md section 6, Pre-call test): a PeerConnection of
// its own, bound to no stream, whose video the server measures and sends back as its probe.
import {SluiceError, clientError} from './errors.mjs';

// A precall ends by the server within its seconds (at most 10) after DTLS is up, or fails
// 10 s after the answer when the PeerConnection never comes up; past this, the server is gone.
const PRECALL_TIMEOUT_MS = 25000;
// No cap from the client: the test is meant to fill the path.
const PRECALL_MAX_BITRATE = 8000000;

// The pre-call test. One promise settles it: the report, precallFailed, an RPC error, the
// abort signal, the socket's end or the timeout, whichever comes first; `finish` cleans up.
export function runPrecall(session, options = {}) {
  return new Promise((resolve, reject) => {
    const signal = options.signal;
    const aborted = () => clientError('ABORTED', 'The pre-call test was aborted');
    if (signal && signal.aborted) {
      reject(aborted());
      return;
    }
    let own = null;
    let pc = null;
    let handle = null;
    let timer = null;
    let done = false;
    const stopOnServer = (key) => { session.request('stop', {handle: key}).catch(() => {}); };
    const finish = (error, report) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onAbort);
      if (handle) session._precalls.delete(handle);
      if (pc) { try { pc.close(); } catch (e) { /* already closed */ } }
      if (own) own.stop();
      if (error) reject(error); else resolve(report);
    };
    const onAbort = () => {
      if (handle) stopOnServer(handle);  // before it: stopped when the answer comes
      finish(aborted());
    };
    if (signal) signal.addEventListener('abort', onAbort);

    const run = {
      event: (params) => {
        const data = params.data || {};
        if (params.type === 'precallProgress') {
          if (typeof options.onProgress !== 'function') return;
          // A throwing callback must not break the session's dispatch: rethrown on its own.
          try { options.onProgress(data, params); } catch (e) { setTimeout(() => { throw e; }); }
        } else if (params.type === 'precallReport') {
          finish(null, data);
        } else if (params.type === 'precallFailed') {
          const error = new SluiceError(-1, data.info || 'The pre-call test failed', 'PRECALL_FAILED', data);
          error.info = data.info;
          finish(error);
        }
      },
      status: (params) => {
        if (params.status !== 'FAILED') return;
        const error = new SluiceError(-1, params.info || 'The pre-call test failed', 'PRECALL_FAILED', params);
        error.info = params.info;
        finish(error);
      },
      end: (error) => finish(error),
    };

    (async () => {
      let media = options.stream;
      if (!media) media = (own = syntheticMedia()).stream;
      const video = media.getVideoTracks()[0];
      if (!video) throw clientError('NEGOTIATION_FAILED', 'The pre-call test needs a video track');
      pc = session._peerConnection(options);
      const sender = pc.addTransceiver(video, {direction: 'sendrecv', streams: [media]}).sender;
      const audio = media.getAudioTracks()[0];
      if (audio) pc.addTransceiver(audio, {direction: 'sendonly', streams: [media]});
      const params = {};
      try {
        await pc.setLocalDescription(await pc.createOffer());
        params.sdp = pc.localDescription.sdp;
      } catch (error) {
        throw clientError('NEGOTIATION_FAILED', String(error && error.message || error));
      }
      if (options.seconds !== undefined) params.seconds = options.seconds;
      if (done) return;
      const result = await session.request('precall', params);
      if (done) {
        stopOnServer(result.handle);  // aborted (or closed) while the request was out
        return;
      }
      // Registered before anything else awaits, so the handle's first event finds it.
      handle = result.handle;
      session._precalls.set(handle, run);
      timer = setTimeout(() => {
        stopOnServer(handle);
        finish(clientError('TIMEOUT', `No pre-call report within ${PRECALL_TIMEOUT_MS} ms of the answer`));
      }, PRECALL_TIMEOUT_MS);
      try {
        await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
      } catch (error) {
        if (done) return;  // ended meanwhile: the PeerConnection is closed already
        stopOnServer(handle);
        throw clientError('NEGOTIATION_FAILED', `The answer was refused: ${error && error.message || error}`);
      }
      const parameters = sender.getParameters();
      if (parameters.encodings && parameters.encodings.length) {
        parameters.encodings[0].maxBitrate = PRECALL_MAX_BITRATE;
        sender.setParameters(parameters).catch(() => { /* the encoder's own cap then */ });
      }
    })().catch((error) => finish(error instanceof SluiceError ? error
      : clientError('NEGOTIATION_FAILED', String(error && error.message || error))));
  });
}


// The precall's default media: video no encoder can squeeze, so the uplink reading is the
// path's and not the encoder's (Chromium's fake camera sends ~350 kbit/s at a 2 Mbit/s
// target). Eight frames of random pixels, made once and cycled at 30 fps: each is
// independent of the others, so reference frames save nothing either. Audio is a quiet
// WebAudio tone, which needs no microphone permission.
function syntheticMedia() {
  const width = 640;
  const height = 360;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  const frames = [];
  let seed = (Math.random() * 0xffffffff) >>> 0 || 1;
  for (let f = 0; f < 8; f++) {
    const image = context.createImageData(width, height);
    const pixels = new Uint32Array(image.data.buffer);
    for (let i = 0; i < pixels.length; i++) {
      seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;  // xorshift32
      pixels[i] = seed | 0xff000000;  // opaque: alpha is the top byte on little-endian
    }
    frames.push(image);
  }
  let next = 0;
  const draw = () => context.putImageData(frames[next++ % frames.length], 0, 0);
  draw();
  // A timer, not requestAnimationFrame, which stops in a hidden tab.
  const timer = setInterval(draw, 1000 / 30);
  const stream = canvas.captureStream(30);
  let audio = null;
  try {
    audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    gain.gain.value = 0.05;
    const out = audio.createMediaStreamDestination();
    tone.connect(gain).connect(out);
    tone.start();
    audio.resume().catch(() => {});
    for (const track of out.stream.getAudioTracks()) stream.addTrack(track);
  } catch (e) {
    audio = null;  // no WebAudio: video alone measures the same
  }
  return {
    stream,
    stop() {
      clearInterval(timer);
      for (const track of stream.getTracks()) track.stop();
      if (audio) audio.close().catch(() => {});
    },
  };
}
