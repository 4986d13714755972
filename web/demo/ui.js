// The demo page's shared state and page parts: window.demo (the session, the streams, the last
// pre-call run, the log entries, the last stats, for tests and the console), the log that the
// Streams and Calls tabs both write to, and the small widgets (pills, stats lists) they share.

export const $ = (id) => document.getElementById(id);

export const demo = window.demo = {session: null, publisher: null, player: null, camera: null, precall: null,
                                   log: [], stats: {}};
const MAX_LOG = 500;

// MARK: log

// A handle's role in this page, for the log's lines.
export const roleOf = (handle) => {
  if (demo.publisher && demo.publisher.handle === handle) return 'publish';
  if (demo.player && demo.player.handle === handle) return 'play';
  if (demo.precall && demo.precall.handle === handle) return 'precall';
  return '';
};

// One entry of window.demo.log (tests read `kind` and `data`), and its line in the page.
export function log(kind, text, data) {
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

export const brief = (value) => (value === undefined ? '' : JSON.stringify(value));

// One request, logged with its reply or error; returns the result or null on error.
export async function request(method, params, action) {
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

// MARK: widgets

export function pill(element, text, tone) {
  element.textContent = text;
  element.className = 'pill' + (tone ? ' ' + tone : '');
}

export const toneOf = (status) => ({
  ESTABLISHED: 'ok', CONNECTED: 'ok', PUBLISHING: 'ok', PLAYING: 'ok',
  PENDING: 'wait', CONNECTING: 'wait',
  FAILED: 'bad', UNPUBLISHED: 'bad', STOPPED: '', DISCONNECTED: '', CLOSED: '',
})[status] || '';

export const fmt = (value, unit = '') => {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  const shown = typeof value === 'number' ? (Number.isInteger(value) ? value : value.toFixed(value < 10 ? 1 : 0)) : value;
  return `${shown}${unit}`;
};
export const size = (w, h) => (w && h ? `${w}×${h}` : '–');

// A <dl> of [name, value, wide?] rows.
export function renderStats(element, rows) {
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
