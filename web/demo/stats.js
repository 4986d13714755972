// The demo's stats, every second: the server's figures for each handle (what the SFU
// receives or sends) next to the browser's own, in the panels and in window.demo.stats.
import {$, demo, fmt, renderStats, size} from './ui.js';

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
export async function pollStats() {
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
