"""Page helpers for the Chromium data channel test (test_datachannel_chromium.py).

`DATACHANNEL_SCRIPT` goes into a page after chromium.PAGE_SCRIPT. It wraps the page's
RTCPeerConnection so that every connection the page makes (window.sluice.publish or .play
makes exactly one) gets an ordered, reliable channel `chat` right away, before its offer, so
the offer has the m=application line. `window.dc` then sends numbered messages, records what
arrives with Date.now() (the machine's clock, the same one Python's time.time() reads), and
hashes what arrived so Python can compare it with what it expects without moving megabytes
through the DevTools protocol.

A message is fully determined by (index, kind, size): text is "i:<index>:" then letters and
digits, binary is the index as 4 bytes big-endian then (p*31 + index*131) & 0xff; both cut
to `size` (so a message under the header's length carries a prefix of it). datachannel_message
in the test builds the same bytes in Python.
"""

from chromium import open_test_page

DATACHANNEL_SCRIPT = r"""
window.dc = (() => {
  const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const api = {channel: null, received: [], sentAt: [], openedAt: null, closedAt: null, errors: []};
  const Native = window.RTCPeerConnection;

  function Wrapped(config) {
    const pc = new Native(config);
    const channel = pc.createDataChannel('chat');  // ordered and reliable, the defaults
    channel.binaryType = 'arraybuffer';
    channel.bufferedAmountLowThreshold = 256 * 1024;
    channel.onopen = () => { api.openedAt = Date.now(); };
    channel.onclose = () => { api.closedAt = Date.now(); };
    channel.onerror = (ev) => api.errors.push(String(ev.error || ev));
    channel.onmessage = (ev) => api.received.push({at: Date.now(), data: ev.data});
    api.channel = channel;
    return pc;  // `new Wrapped()` yields this native connection
  }
  Wrapped.prototype = Native.prototype;
  window.RTCPeerConnection = Wrapped;

  api.make = (i, kind, size) => {
    if (kind === 'text') {
      const off = (i * 7) % 62;
      return ('i:' + i + ':' + ALPHA.repeat(Math.floor(size / 62) + 2).slice(off, off + size)).slice(0, size);
    }
    const bytes = new Uint8Array(size);
    for (let k = 0; k < Math.min(4, size); k++) bytes[k] = (i >>> (8 * (3 - k))) & 0xff;
    const base = (i * 131) & 0xff;
    for (let p = 0; 4 + p < size; p++) bytes[4 + p] = (p * 31 + base) & 0xff;
    return bytes;
  };

  api.state = () => (api.channel ? api.channel.readyState : 'none');

  // The plan: [[kind, size], ...] for every index.
  api.plan = null;
  api.setPlan = (plan) => { api.plan = plan; };

  // Sends messages [from, to) of the plan, never letting more than 1 MiB wait in the channel.
  api.sendRange = async (from, to) => {
    const ch = api.channel;
    for (let i = from; i < to; i++) {
      while (ch.bufferedAmount > 1024 * 1024) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 50);  // a poll in case the event was missed
          ch.addEventListener('bufferedamountlow', () => { clearTimeout(timer); resolve(); }, {once: true});
        });
      }
      const [kind, size] = api.plan[i];
      const message = api.make(i, kind, size);
      api.sentAt[i] = Date.now();
      ch.send(message);
    }
    return ch.bufferedAmount;
  };

  api.send = (text) => { api.channel.send(text); return Date.now(); };

  api.count = () => api.received.length;

  // [{kind, size, sha256, at}] of what arrived, from index `from`.
  api.digests = async (from = 0) => {
    const out = [];
    for (const r of api.received.slice(from)) {
      const text = typeof r.data === 'string';
      const bytes = text ? new TextEncoder().encode(r.data) : new Uint8Array(r.data);
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      out.push({kind: text ? 'text' : 'binary', size: bytes.length, at: r.at,
                sha256: Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')});
    }
    return out;
  };

  // The text of the messages that arrived (for the short replies).
  api.texts = (from = 0) => api.received.slice(from).map(
    (r) => ({at: r.at, text: typeof r.data === 'string' ? r.data : null}));

  return api;
})();
"""


async def add_datachannel_script(page) -> None:
    """Wraps the page's RTCPeerConnection (see DATACHANNEL_SCRIPT); before publish or play."""
    await page.evaluate(DATACHANNEL_SCRIPT)


async def another_page(page, console_log: list | None = None, tag: str = ""):
    """A second page in `page`'s browser, made the way chromium.chromium_page makes its page
    (the intercepted secure-context URL, then PAGE_SCRIPT), plus DATACHANNEL_SCRIPT. One
    browser for both pages spares the two-core machine a second Chromium."""
    other = await open_test_page(page.context.browser, console_log, tag)
    await add_datachannel_script(other)
    return other
