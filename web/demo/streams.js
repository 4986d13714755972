// The demo's Streams tab: one publish handle (the camera, with size, frame rate, bitrate and
// simulcast) and one play handle (with quality, size and bitrate caps applied live through
// update), each with its mute buttons, on the session that demo.js connects.
import {$, demo, log, request} from './ui.js';
import {refreshPrecall} from './precall.js';
import {followPageNames} from './speakers.js';

// MARK: buttons

// The connect form's and the Streams tab's buttons, as the session and its handles stand.
export function refreshButtons() {
  const online = !!demo.session;
  $('connectBtn').textContent = online ? 'Disconnect' : 'Connect';
  $('connectBtn').classList.toggle('stop', online);
  $('url').disabled = online;
  $('appKey').disabled = online;
  for (const [button, stream, label] of [[$('publishBtn'), demo.publisher, 'Publish'], [$('playBtn'), demo.player, 'Play']]) {
    button.disabled = !online;
    button.textContent = stream ? 'Stop' : label;
    button.classList.toggle('stop', !!stream);
  }
  $('pubHandle').textContent = demo.publisher ? demo.publisher.handle : '';
  $('playHandle').textContent = demo.player ? demo.player.handle : '';
  refreshPrecall();
  followPageNames();
  for (const button of document.querySelectorAll('#publishPanel button.mute, #playPanel button.mute')) {
    const stream = button.id.startsWith('pub') ? demo.publisher : demo.player;
    button.disabled = !stream;
    if (!stream) setMuteButton(button, false);
  }
}

function setMuteButton(button, muted) {
  const kind = button.dataset.kind;
  button.classList.toggle('on', muted);
  button.textContent = `${muted ? 'Unmute' : 'Mute'} ${kind}`;
}

// MARK: publish

export async function listCameras() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.enumerateDevices) return;
  const select = $('pubDevice');
  const chosen = select.value;
  const devices = (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'videoinput');
  select.replaceChildren(new Option('default camera', ''));
  devices.forEach((d, i) => {
    if (d.deviceId) select.append(new Option(d.label || `camera ${i + 1}`, d.deviceId));
  });
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

export function stopCamera() {
  if (demo.camera) demo.camera.getTracks().forEach((t) => t.stop());
  demo.camera = null;
  $('pubVideo').srcObject = null;
}

export async function publish() {
  const [width, height] = $('pubResolution').value.split('x').map(Number);
  const fps = Number($('pubFps').value);
  const bitrate = Math.round(Number($('pubBitrate').value)) || undefined;
  const audio = $('pubAudio').checked;
  const device = $('pubDevice').value;
  const video = {width: {ideal: width}, height: {ideal: height}, frameRate: {ideal: fps}};
  if (device) video.deviceId = {exact: device};
  try {
    demo.camera = await navigator.mediaDevices.getUserMedia({video, audio});
  } catch (error) {
    log('error', `camera: ${error.name}: ${error.message}`, {method: 'getUserMedia'});
    return;
  }
  $('pubVideo').srcObject = demo.camera;
  listCameras().catch(() => {});
  const track = demo.camera.getVideoTracks()[0];
  const settings = track ? track.getSettings() : {};
  const constraints = {
    audio,
    video: {width: settings.width || width, height: settings.height || height, fps, ...(bitrate ? {bitrate} : {})},
  };
  const simulcast = $('pubSimulcast').checked;
  const name = $('pubName').value.trim();
  const stream = await request('publish', {stream: name, constraints, simulcast},
    () => demo.session.publish(name, demo.camera, {constraints, simulcast}));
  if (!stream) {
    stopCamera();
    return;
  }
  demo.publisher = stream;
  if ($('playName').value.trim() === '') $('playName').value = name;
  refreshButtons();
}

// MARK: play

function playConstraints() {
  const video = {quality: $('playQuality').value};
  for (const [key, id] of [['width', 'playWidth'], ['height', 'playHeight'], ['bitrate', 'playBitrate']]) {
    const value = Math.round(Number($(id).value));
    if ($(id).value !== '' && value > 0) video[key] = value;
  }
  return {audio: true, video};
}

export async function play() {
  const name = $('playName').value.trim();
  const constraints = playConstraints();
  const wait = $('playWait').checked;
  const stream = await request('play', {stream: name, constraints, wait},
    () => demo.session.play(name, {constraints, wait}));
  if (!stream) return;
  demo.player = stream;
  const element = $('playVideo');
  element.srcObject = stream.mediaStream;
  element.muted = false;
  element.play().catch(() => {
    // No user activation left for sound: play muted rather than not at all.
    element.muted = true;
    element.play().catch(() => {});
  });
  refreshButtons();
}

export async function applyPlayConstraints() {
  if (!demo.player) return;
  const constraints = playConstraints();
  await request('update', {handle: demo.player.handle, constraints},
    () => demo.session.update(demo.player, constraints));
}

// MARK: stop and mute

export async function stopStream(key) {
  const stream = demo[key];
  if (!stream) return;
  await request('stop', {handle: stream.handle}, () => demo.session.stop(stream));
  if (demo[key] === stream) demo[key] = null;
  if (key === 'publisher') stopCamera();
  else $('playVideo').srcObject = null;
  refreshButtons();
}

export async function toggleMute(button) {
  const stream = button.id.startsWith('pub') ? demo.publisher : demo.player;
  if (!stream) return;
  const kind = button.dataset.kind;
  const muting = !button.classList.contains('on');
  const method = muting ? 'mute' : 'unmute';
  const result = await request(method, {handle: stream.handle, kind},
    () => (muting ? demo.session.mute(stream, kind) : demo.session.unmute(stream, kind)));
  if (result) setMuteButton(button, muting);
}
