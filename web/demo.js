// The Sluice demo page (index.html): one session, the Streams tab (one publish and one play
// handle, the pre-call network test) and the Calls tab (calls.js), driven by the SDK's ES module.
// window.demo (demo/ui.js) exposes the page's state for tests and the console.
//
//   demo/ui.js       window.demo, the log, pills and stats lists
//   demo/streams.js  publish, play, mute, stop
//   demo/precall.js  the network test
//   demo/stats.js    the stats panels, every second
//   demo/speakers.js the speaking indicators (followSpeakers)
import Sluice from './sdk/sluice.mjs';
import {runPrecall, precallRunning} from './demo/precall.js';
import {watchSpeakers} from './demo/speakers.js';
import {pollStats} from './demo/stats.js';
import {applyPlayConstraints, listCameras, play, publish, refreshButtons, stopCamera, stopStream,
  toggleMute} from './demo/streams.js';
import {$, brief, demo, log, pill, roleOf, toneOf} from './demo/ui.js';

// MARK: session

async function connect() {
  const url = $('url').value.trim() || null;
  const appKey = $('appKey').value.trim();
  pill($('sessionStatus'), 'connecting', 'wait');
  log('request', `connect ${url} appKey=${appKey}`, {method: 'connect'});
  const options = {appKey};
  if ($('relayOnly').checked) options.iceTransportPolicy = 'relay';
  let session;
  try {
    session = await Sluice.connect(url, options);
  } catch (error) {
    log('error', `connect: ${error.message} (${error.code}${error.reason ? ' ' + error.reason : ''})`,
      {method: 'connect', code: error.code, reason: error.reason});
    pill($('sessionStatus'), 'offline', 'bad');
    return;
  }
  demo.session = session;
  log('reply', `connect -> session ${session.sessionId}, server ${session.serverVersion}, `
    + `${session.iceServers.length} TURN server(s)${options.iceTransportPolicy ? ', relay only' : ''}`,
    {method: 'connect', result: {sessionId: session.sessionId}});
  $('versions').textContent = `sdk ${Sluice.version} · server ${session.serverVersion}`;
  pill($('sessionStatus'), 'connected', 'ok');
  session.on('session', (p) => {
    log('session', `${p.status}${p.info ? ' — ' + p.info : ''}`, p);
    pill($('sessionStatus'), p.status.toLowerCase(), toneOf(p.status));
  });
  session.on('streamStatus', (p) => {
    log('status', `${roleOf(p.handle) || p.role} ${p.stream} ${p.status}${p.info ? ' — ' + p.info : ''}`, p);
    onStreamStatus(p);
  });
  session.on('streamEvent', (p) => {
    // A precall's events carry its handle and no stream; they tell the demo that handle.
    if (p.type.startsWith('precall') && precallRunning() && !demo.precall.handle) {
      demo.precall.handle = p.handle;
      refreshButtons();
    }
    log('event', `${roleOf(p.handle) || '?'}${p.stream !== undefined ? ' ' + p.stream : ''} ${p.type}${p.by ? ' by ' + p.by : ''}${p.data ? ' ' + brief(p.data) : ''}`, p);
  });
  session.on('error', (e) => log('error', e.message, e));
  watchSpeakers(session);
  session.on('close', (p) => {
    log('session', `socket closed (${p.code}${p.reason ? ' ' + p.reason : ''})`, p);
    if (demo.session === session) resetSession();
  });
  refreshButtons();
}

function resetSession() {
  demo.session = null;
  demo.publisher = null;
  demo.player = null;
  stopCamera();
  $('playVideo').srcObject = null;
  pill($('sessionStatus'), 'offline', '');
  pill($('pubStatus'), 'idle', '');
  pill($('playStatus'), 'idle', '');
  refreshButtons();
}

function onStreamStatus(p) {
  for (const [key, element] of [['publisher', $('pubStatus')], ['player', $('playStatus')]]) {
    const stream = demo[key];
    if (!stream || stream.handle !== p.handle) continue;
    pill(element, p.status.toLowerCase(), toneOf(p.status));
    const ended = p.status === 'FAILED' || p.status === 'STOPPED' ||
      (p.status === 'UNPUBLISHED' && !(key === 'player' && stream.wait));
    if (ended) {
      demo[key] = null;
      if (key === 'publisher') stopCamera();
      else $('playVideo').srcObject = null;
      refreshButtons();
    }
  }
}

// MARK: wiring

// The tabs show one group of panels; the log stays under both.
function showTab(name) {
  for (const tab of document.querySelectorAll('.tabs .tab')) {
    const on = tab.dataset.tab === name;
    tab.classList.toggle('on', on);
    tab.setAttribute('aria-selected', String(on));
  }
  for (const panel of document.querySelectorAll('.panel[data-tab]')) panel.hidden = panel.dataset.tab !== name;
}

function init() {
  for (const tab of document.querySelectorAll('.tabs .tab')) {
    tab.addEventListener('click', () => showTab(tab.dataset.tab));
  }
  $('url').value = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host || '127.0.0.1:8080'}/ws`;
  $('connectForm').addEventListener('submit', (event) => {
    event.preventDefault();
    if (demo.session) {
      const session = demo.session;
      log('request', 'disconnect', {method: 'disconnect'});
      session.disconnect().finally(() => { if (demo.session === session) resetSession(); });
    } else {
      connect();
    }
  });
  $('publishBtn').addEventListener('click', () => (demo.publisher ? stopStream('publisher') : publish()));
  $('playBtn').addEventListener('click', () => (demo.player ? stopStream('player') : play()));
  $('precall-button').addEventListener('click', () => {
    if (precallRunning()) demo.precall.controller.abort();
    else if (demo.session) runPrecall();
  });
  for (const button of document.querySelectorAll('#publishPanel button.mute, #playPanel button.mute')) {
    button.addEventListener('click', () => toggleMute(button));
  }
  for (const id of ['playQuality', 'playWidth', 'playHeight', 'playBitrate']) {
    $(id).addEventListener('change', applyPlayConstraints);
  }
  $('pubName').addEventListener('input', () => {
    if (!demo.player) $('playName').value = $('pubName').value;
  });
  $('clearLog').addEventListener('click', () => $('log').replaceChildren());
  listCameras().catch(() => {});
  setInterval(pollStats, 1000);
  refreshButtons();
  log('info', `Sluice demo, sdk ${Sluice.version}: connect, publish the camera, play any stream name.`);
}

init();
