// The demo's network test: one run of session.precall() at a time, its figures as they come,
// then the report and what it recommends. window.demo.precall is the last run (tests read it).
import {$, demo, fmt, renderStats, request, pill, size} from './ui.js';

export const precallRunning = () => !!demo.precall && demo.precall.endedAt === null;
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
export async function runPrecall() {
  const controller = new AbortController();
  const run = demo.precall = {handle: null, controller, progress: [], report: null, error: null,
                              startedAt: Date.now(), endedAt: null};
  precallState('running', 'wait', 'running');
  $('precall-report').hidden = true;
  $('precall-report').replaceChildren();
  delete $('precall-report').dataset.report;
  renderStats($('precall-progress'), progressRows(null));
  refreshPrecall();
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
  refreshPrecall();
}

// The network test's button and handle, as the run and the session stand.
export function refreshPrecall() {
  const testing = precallRunning();
  $('precall-button').disabled = !demo.session && !testing;
  $('precall-button').textContent = testing ? 'Cancel test' : 'Test my network';
  $('precall-button').classList.toggle('stop', testing);
  $('precall-handle').textContent = demo.precall && demo.precall.handle ? demo.precall.handle : '';
}
