// The Sluice demo page: one session, one publish and one play handle, and the pre-call network
// test, driven by sdk/sluice.js (the Calls tab is calls.js). window.demo exposes its state (session, streams, the last precall
// run, log entries, last stats) for tests and the console.
(() => {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const demo = window.demo = {session: null, publisher: null, player: null, camera: null, precall: null,
                                   log: [], stats: {}};
  // The Calls tab (calls.js) writes to the same log.
  demo.write = (kind, text, data) => log(kind, text, data);
  const MAX_LOG = 500;

  // MARK: log

  const roleOf = (handle) => {
    if (demo.publisher && demo.publisher.handle === handle) return 'publish';
    if (demo.player && demo.player.handle === handle) return 'play';
    if (demo.precall && demo.precall.handle === handle) return 'precall';
    return '';
  };

  function log(kind, text, data) {
    const entry = {at: Date.now(), kind, text, data};
    demo.log.push(entry);
    if (demo.log.length > MAX_LOG) demo.log.shift();
    const item = document.createElement('li');
    item.className = kind;
    const time = document.createElement('time');
    time.textContent = new Date(entry.at).toLocaleTimeString([], {hour12: false}) +
      '.' + String(entry.at % 1000).padStart(3, '0');
    const label = document.createElement('span');
    label.className = 'k';
    label.textContent = kind;
    item.append(time, label, document.createTextNode(' ' + text));
    const list = $('log');
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    list.append(item);
    while (list.children.length > MAX_LOG) list.firstChild.remove();
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  const brief = (value) => (value === undefined ? '' : JSON.stringify(value));

  // One request, logged with its reply or error; returns the result or null on error.
  async function request(method, params, action) {
    log('request', `${method} ${brief(params)}`, {method, params});
    try {
      const result = await action();
      const shown = result && result.handle ? {handle: result.handle} : result;
      log('reply', `${method} -> ${brief(shown)}`, {method, params, result: shown});
      return result;
    } catch (error) {
      log('error', `${method}: ${error.message}${error.code !== undefined ? ` (${error.code}${error.reason ? ' ' + error.reason : ''})` : ''}`,
        {method, params, code: error.code, reason: error.reason, message: error.message});
      return null;
    }
  }

  // MARK: UI state

  function pill(element, text, tone) {
    element.textContent = text;
    element.className = 'pill' + (tone ? ' ' + tone : '');
  }

  const toneOf = (status) => ({
    ESTABLISHED: 'ok', CONNECTED: 'ok', PUBLISHING: 'ok', PLAYING: 'ok',
    PENDING: 'wait', CONNECTING: 'wait',
    FAILED: 'bad', UNPUBLISHED: 'bad', STOPPED: '', DISCONNECTED: '', CLOSED: '',
  })[status] || '';

  function refreshButtons() {
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
    const testing = precallRunning();
    $('precall-button').disabled = !online && !testing;
    $('precall-button').textContent = testing ? 'Cancel test' : 'Test my network';
    $('precall-button').classList.toggle('stop', testing);
    $('precall-handle').textContent = demo.precall && demo.precall.handle ? demo.precall.handle : '';
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

  // MARK: publish

  async function listCameras() {
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

  function stopCamera() {
    if (demo.camera) demo.camera.getTracks().forEach((t) => t.stop());
    demo.camera = null;
    $('pubVideo').srcObject = null;
  }

  async function publish() {
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

  async function play() {
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

  async function applyPlayConstraints() {
    if (!demo.player) return;
    const constraints = playConstraints();
    await request('update', {handle: demo.player.handle, constraints},
      () => demo.session.update(demo.player, constraints));
  }

  // MARK: pre-call test

  const precallRunning = () => !!demo.precall && demo.precall.endedAt === null;
  const percent = (v) => (v === undefined || v === null ? '–' : `${(v * 100).toFixed(1)} %`);

  function precallState(text, tone, state) {
    pill($('precall-status'), text, tone);
    $('precall-status').dataset.state = state;
  }

  function progressRows(f) {
    f = f || {};
    return [
      ['elapsed', f.elapsedMs === undefined || f.elapsedMs === null ? '–' : `${(f.elapsedMs / 1000).toFixed(1)} s`],
      ['uplink', fmt(f.uplinkKbps, ' kbit/s')],
      ['downlink', fmt(f.downlinkKbps, ' kbit/s')],
      ['rtt', fmt(f.rttMs, ' ms')],
      ['jitter', fmt(f.jitterMs, ' ms')],
      ['loss up', percent(f.lossUp)],
      ['loss down', percent(f.lossDown)],
    ];
  }

  function reportRows(r) {
    const publish = r.recommended && r.recommended.publish;
    const play = r.recommended && r.recommended.play;
    return [
      ['quality', r.quality ? `${r.quality.level} (${fmt(r.quality.score)})` : '–', true],
      ['publish with', publish ? `${size(publish.width, publish.height)} @ ${publish.fps} fps, ${publish.bitrate} kbit/s` : '–', true],
      ['play quality', play ? play.quality : '–'],
      ['took', fmt(r.durationMs, ' ms')],
    ];
  }

  const toneOfLevel = (level) => ({excellent: 'ok', good: 'ok', average: 'wait', fair: 'wait', poor: 'bad'})[level] || '';

  // One run of session.precall(): its figures as they come, then the report. The button
  // cancels a run (the SDK sends `stop`).
  async function runPrecall() {
    const controller = new AbortController();
    const run = demo.precall = {handle: null, controller, progress: [], report: null, error: null,
                                startedAt: Date.now(), endedAt: null};
    precallState('running', 'wait', 'running');
    $('precall-report').hidden = true;
    $('precall-report').replaceChildren();
    delete $('precall-report').dataset.report;
    renderStats($('precall-progress'), progressRows(null));
    refreshButtons();
    const session = demo.session;
    const onProgress = (figures, event) => {
      run.handle = run.handle || event.handle;
      run.progress.push({at: Date.now(), figures});
      if (demo.precall === run) renderStats($('precall-progress'), progressRows(figures));
    };
    const report = await request('precall', {}, () => session.precall({signal: controller.signal, onProgress})
      .catch((error) => {
        run.error = {code: error.code, reason: error.reason, message: error.message, info: error.info};
        throw error;
      }));
    run.endedAt = Date.now();
    if (demo.precall !== run) return;
    if (report) {
      run.report = report;
      renderStats($('precall-progress'), progressRows({...report, elapsedMs: report.durationMs}));
      const element = $('precall-report');
      renderStats(element, reportRows(report));
      element.dataset.report = JSON.stringify(report);
      element.hidden = false;
      const level = report.quality && report.quality.level;
      precallState(level ? `done: ${level}` : 'done', toneOfLevel(level), 'done');
    } else if (run.error && run.error.reason === 'ABORTED') {
      precallState('cancelled', '', 'aborted');
    } else {
      precallState('failed', 'bad', 'failed');
    }
    refreshButtons();
  }

  // MARK: buttons

  async function stopStream(key) {
    const stream = demo[key];
    if (!stream) return;
    await request('stop', {handle: stream.handle}, () => demo.session.stop(stream));
    if (demo[key] === stream) demo[key] = null;
    if (key === 'publisher') stopCamera();
    else $('playVideo').srcObject = null;
    refreshButtons();
  }

  async function toggleMute(button) {
    const stream = button.id.startsWith('pub') ? demo.publisher : demo.player;
    if (!stream) return;
    const kind = button.dataset.kind;
    const muting = !button.classList.contains('on');
    const method = muting ? 'mute' : 'unmute';
    const result = await request(method, {handle: stream.handle, kind},
      () => (muting ? demo.session.mute(stream, kind) : demo.session.unmute(stream, kind)));
    if (result) setMuteButton(button, muting);
  }

  // MARK: stats

  const fmt = (value, unit = '') => {
    if (value === undefined || value === null || Number.isNaN(value)) return '–';
    const shown = typeof value === 'number' ? (Number.isInteger(value) ? value : value.toFixed(value < 10 ? 1 : 0)) : value;
    return `${shown}${unit}`;
  };
  const size = (w, h) => (w && h ? `${w}×${h}` : '–');

  function renderStats(element, rows) {
    element.replaceChildren(...rows.map(([name, value, wide]) => {
      const row = document.createElement('div');
      if (wide) row.className = 'wide';
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = value;
      row.append(dt, dd);
      return row;
    }));
  }

  async function statsFor(key) {
    const stream = demo[key];
    if (!stream || !demo.session) return null;
    const [server, peer] = await Promise.all([
      demo.session.getStats(stream).catch((e) => ({error: e.message})),
      stream.getPeerStats().catch(() => ({})),
    ]);
    return {handle: stream.handle, server, peer};
  }

  // Server figures (what the SFU receives or sends) next to the browser's own.
  function statsRows(stats, role) {
    if (!stats) return [];
    const server = stats.server || {};
    const sv = server.video || {};
    const sa = server.audio || {};
    const pv = (stats.peer && stats.peer.video) || {};
    const rows = [
      ['video kbit/s', fmt(sv.bitrate)],
      ['audio kbit/s', fmt(sa.bitrate)],
      ['packets', fmt(sv.packets)],
      ['lost', fmt(sv.packetsLost)],
      ['rtt', fmt(sv.rttMs, ' ms')],
      ['nacks / plis', `${fmt(sv.nacks)} / ${fmt(sv.plis)}`],
    ];
    if (sv.width) rows.push(['server size', size(sv.width, sv.height)]);
    if (sv.fps) rows.push(['server fps', fmt(sv.fps)]);
    if (sv.layer !== undefined) rows.push(['layer', fmt(sv.layer)]);
    if (Array.isArray(sv.layers)) rows.push(['layers', String(sv.layers.length)]);
    const pair = stats.peer && stats.peer.candidatePair;
    if (pair) rows.push(['ice path', `${pair.localType} ${pair.protocol} → ${pair.remoteType}`]);
    if (role === 'publish') {
      rows.push(['encoded', fmt(pv.framesEncoded)], ['sent size', size(pv.frameWidth, pv.frameHeight)],
        ['sent fps', fmt(pv.framesPerSecond)]);
      if (pv.qualityLimitationReason && pv.qualityLimitationReason !== 'none') rows.push(['limited by', pv.qualityLimitationReason]);
      if (Array.isArray(pv.encodings)) {
        rows.push(['simulcast', pv.encodings.map((e) => `${e.rid}: ${size(e.frameWidth, e.frameHeight)}`).join('  ·  '), true]);
      }
    } else {
      rows.push(['decoded', fmt(pv.framesDecoded)], ['shown size', size(pv.frameWidth, pv.frameHeight)],
        ['shown fps', fmt(pv.framesPerSecond)]);
    }
    if (server.connectionQuality) rows.push(['quality', `${server.connectionQuality.level} (${fmt(server.connectionQuality.score)})`]);
    if (server.error) rows.push(['stats', server.error, true]);
    return rows;
  }

  let polling = false;
  async function pollStats() {
    if (polling) return;
    polling = true;
    try {
      const [publish, play] = await Promise.all([statsFor('publisher'), statsFor('player')]);
      demo.stats = {publish, play, at: Date.now()};
      renderStats($('pubStats'), statsRows(publish, 'publish'));
      renderStats($('playStats'), statsRows(play, 'play'));
    } finally {
      polling = false;
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
})();
