// The demo's Calls tab: a session of its own as a named user (connect's `user`, for an app with
// trustClientUser), one call at a time through the SDK's Call, and the user's call log.
// window.demoCalls exposes its state (session, call, camera, events) for tests and the console;
// it writes to the page's one log (demo/ui.js).
import Sluice from './sdk/sluice.mjs';
import {$, log as write} from './demo/ui.js';

const state = window.demoCalls = {session: null, call: null, camera: null, events: []};
const describe = (error) => `${error.message}${error.code !== undefined ? ` (${error.code}${error.reason ? ' ' + error.reason : ''})` : ''}`;

const toneOf = (status) => ({CONNECTED: 'ok', RINGING: 'wait', CONNECTING: 'wait', ON_HOLD: 'wait'})[status] || '';

function pill(text, tone) {
  $('callStatus').textContent = text;
  $('callStatus').className = 'pill' + (tone ? ' ' + tone : '');
}

function line(text) { $('callLine').textContent = text; }

// A button press as a request: logged, with its error shown rather than thrown.
async function act(what, action) {
  write('request', what, {method: what});
  try {
    const result = await action();
    write('reply', `${what} -> ok`, {method: what});
    return result === undefined ? true : result;
  } catch (error) {
    write('error', `${what}: ${describe(error)}`, {method: what, code: error.code, reason: error.reason});
    line(`${what} failed: ${error.message}`);
    return null;
  }
}

function refresh() {
  const online = !!state.session;
  const call = state.call;
  const live = !!call && !call.ended;
  const connected = live && (call.status === 'CONNECTED' || call.status === 'ON_HOLD');
  $('callConnectBtn').textContent = online ? 'Disconnect' : 'Connect';
  $('callConnectBtn').classList.toggle('stop', online);
  $('callUser').disabled = online;
  $('callBtn').disabled = !online || live;
  $('callLogRefresh').disabled = !online;
  $('incomingCall').hidden = !(live && call.direction === 'incoming' && call.status === 'RINGING');
  $('hangupBtn').disabled = !live || $('incomingCall').hidden === false;
  $('holdBtn').disabled = !connected;
  const heldByMe = live && call.status === 'ON_HOLD' && state.holding;
  $('holdBtn').textContent = heldByMe ? 'Unhold' : 'Hold';
  for (const button of [$('callMuteAudio'), $('callMuteVideo')]) {
    button.disabled = !connected;
    if (!live) setMute(button, false);
  }
  $('callId').textContent = live ? call.id : '';
}

function setMute(button, muted) {
  button.classList.toggle('on', muted);
  button.textContent = `${muted ? 'Unmute' : 'Mute'} ${button.dataset.kind}`;
}

// MARK: session

async function connect() {
  const user = $('callUser').value.trim();
  const url = $('url').value.trim() || null;
  const appKey = $('appKey').value.trim();
  if (!user) { line('Give a user name first.'); return; }
  pill('connecting', 'wait');
  let session;
  try {
    session = await Sluice.connect(url, {appKey, user});
  } catch (error) {
    write('error', `calls connect: ${describe(error)}`, {method: 'connect', code: error.code, reason: error.reason});
    pill('offline', 'bad');
    line(`Cannot connect: ${error.message}`);
    return;
  }
  state.session = session;
  write('session', `calls: connected as ${session.identity}`, {method: 'connect', user: session.identity});
  pill('idle', '');
  line(`Connected as ${session.identity}.`);
  session.on('incomingCall', (call) => {
    if (state.call && !state.call.ended) {
      // One call at a time in this demo: a second one is declined.
      call.decline().catch(() => {});
      return;
    }
    watch(call);
    line(`${call.from} is calling (${kinds(call)}).`);
    $('incomingText').textContent = `${call.from} is calling · ${kinds(call)}`;
    refresh();
  });
  session.on('close', () => {
    if (state.session !== session) return;
    state.session = null;
    pill('offline', '');
    line('Not connected.');
    refresh();
  });
  refresh();
  loadCallLog();
}

async function disconnect() {
  const session = state.session;
  if (!session) return;
  await session.disconnect();
  stopCamera();
}

const kinds = (call) => [call.video && 'video', call.audio && 'audio'].filter(Boolean).join(' + ') || 'no media';

async function camera(video, audio) {
  stopCamera();
  state.camera = await navigator.mediaDevices.getUserMedia({video, audio});
  $('callLocalVideo').srcObject = state.camera;
  return state.camera;
}

function stopCamera() {
  if (state.camera) state.camera.getTracks().forEach((t) => t.stop());
  state.camera = null;
  $('callLocalVideo').srcObject = null;
}

// MARK: the call

function watch(call) {
  state.call = call;
  state.holding = false;
  call.on('status', (d) => {
    state.events.push({type: 'status', ...d});
    write('status', `call ${d.status}${d.by ? ' by ' + d.by : ''}${d.endResult ? ' — ' + d.endResult : ''}`, d);
    pill(d.status.toLowerCase().replace('_', ' '), toneOf(d.status));
    line(statusText(call, d));
    refresh();
  });
  call.on('remoteStream', ({stream}) => {
    const video = $('callRemoteVideo');
    video.srcObject = stream;
    video.play().catch(() => {
      // No user activation left for sound: play muted rather than not at all.
      video.muted = true;
      video.play().catch(() => {});
    });
  });
  for (const type of ['muted', 'unmuted']) {
    call.on(type, (d) => {
      state.events.push({type, ...d});
      write('event', `call: the other side's ${d.kind} ${type}${d.by ? ' by ' + d.by : ''}`, d);
    });
  }
  call.on('error', (error) => write('error', `call media: ${describe(error)}`, {code: error.code, reason: error.reason}));
  call.on('ended', () => {
    $('callRemoteVideo').srcObject = null;
    stopCamera();
    loadCallLog(call.id);
  });
}

function statusText(call, d) {
  const other = call.direction === 'outgoing' ? call.to : call.from;
  switch (d.status) {
    case 'RINGING': return `Ringing ${other}…`;
    case 'CONNECTING': return `Connecting with ${other}…`;
    case 'CONNECTED': return `In a call with ${other}.`;
    case 'ON_HOLD': return `On hold by ${d.by || 'a party'}.`;
    case 'ENDED': return `Call ended: ${d.endResult}${d.reason ? ' (' + d.reason + ')' : ''}.`;
    default: return d.status;
  }
}

async function placeCall() {
  const to = $('callTo').value.trim();
  if (!state.session || !to) return;
  const video = $('callVideo').checked;
  const audio = $('callAudio').checked;
  const localStream = await act('camera', () => camera(video, audio));
  if (!localStream) return;
  const call = await act(`call ${to}`, () => state.session.call(to, {localStream, video, audio}));
  if (!call) { stopCamera(); return; }
  watch(call);
  line(`Calling ${to}…`);
  refresh();
}

async function accept() {
  const call = state.call;
  if (!call) return;
  const localStream = await act('camera', () => camera(call.video, call.audio));
  if (!localStream) { call.decline().catch(() => {}); return; }
  await act('accept', () => call.accept({localStream}));
  refresh();
}

async function toggleHold() {
  const call = state.call;
  if (!call) return;
  const holding = !state.holding;
  if (await act(holding ? 'hold' : 'unhold', () => (holding ? call.hold() : call.unhold()))) {
    state.holding = holding;
    refresh();
  }
}

async function toggleMute(button) {
  const call = state.call;
  if (!call) return;
  const kind = button.dataset.kind;
  const muting = !button.classList.contains('on');
  const method = `${muting ? 'mute' : 'unmute'}${kind === 'video' ? 'Video' : 'Audio'}`;
  if (await act(method, () => call[method]())) setMute(button, muting);
}

// MARK: call log

// The server writes the log off its signaling thread, so a call that just ended may still
// read as in progress: `ended` (its id) asks again a few times until its end is there.
async function loadCallLog(ended, tries = 5) {
  const session = state.session;
  if (!session) return;
  let page;
  try {
    page = await session.callLog({limit: 20});
  } catch (error) {
    write('error', `callLog: ${describe(error)}`, {method: 'callLog', code: error.code, reason: error.reason});
    return;
  }
  state.callLog = page.calls;
  $('callLog').replaceChildren(...page.calls.map((c) => {
    const item = document.createElement('li');
    item.dataset.callId = c.callId;
    const outgoing = c.caller === session.identity;
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = outgoing ? `→ ${c.callee}` : `← ${c.caller}`;
    const when = document.createElement('span');
    when.className = 'when';
    when.textContent = new Date(c.startedAt).toLocaleString([], {hour12: false});
    const how = document.createElement('span');
    how.className = 'how';
    how.textContent = c.endResult === null ? 'in progress'
      : `${c.endResult}${c.durationMs ? ', ' + (c.durationMs / 1000).toFixed(1) + ' s' : ''}`;
    item.append(who, when, how);
    return item;
  }));
  const pending = typeof ended === 'string' && page.calls.some((c) => c.callId === ended && c.endResult === null);
  if (pending && tries > 1) setTimeout(() => loadCallLog(ended, tries - 1), 500);
}

// MARK: wiring

$('callConnectForm').addEventListener('submit', (event) => {
  event.preventDefault();
  if (state.session) disconnect(); else connect();
});
$('callForm').addEventListener('submit', (event) => {
  event.preventDefault();
  placeCall();
});
$('acceptBtn').addEventListener('click', accept);
$('declineBtn').addEventListener('click', () => state.call && act('decline', () => state.call.decline()));
$('hangupBtn').addEventListener('click', () => state.call && act('hangup', () => state.call.hangup()));
$('holdBtn').addEventListener('click', toggleHold);
for (const button of [$('callMuteAudio'), $('callMuteVideo')]) button.addEventListener('click', () => toggleMute(button));
$('callLogRefresh').addEventListener('click', () => loadCallLog());
refresh();
