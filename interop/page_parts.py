"""JavaScript that several page scripts share, to splice into them.

- `OPEN_JS`: `open(url)` resolves to a JSON-RPC client with `call(method, params)` (a promise
  of the result) and `notes`, the notifications in order, each with `at` (performance.now()).
- `MAINTAIN_RESOLUTION_JS`: `maintainResolution(sender)`, so a busy machine drops frames
  rather than shrink what the tests measure (a resolution change is a key frame of its own).
"""

OPEN_JS = r"""
  const open = (url) => new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const client = {ws, nextId: 1, pending: new Map(), notes: []};
    client.call = (method, params) => new Promise((res, rej) => {
      const id = client.nextId++;
      client.pending.set(id, {res, rej});
      ws.send(JSON.stringify({jsonrpc: '2.0', id, method, params}));
    });
    ws.onopen = () => resolve(client);
    ws.onerror = () => reject(new Error('websocket error'));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.id !== undefined && msg.id !== null && client.pending.has(msg.id)) {
        const p = client.pending.get(msg.id);
        client.pending.delete(msg.id);
        if (msg.error) p.rej(new Error('rpc error ' + JSON.stringify(msg.error)));
        else p.res(msg.result);
      } else if (msg.method) {
        client.notes.push({method: msg.method, params: msg.params || {}, at: performance.now()});
      }
    };
  });
"""

MAINTAIN_RESOLUTION_JS = r"""
  const maintainResolution = async (sender) => {
    try {
      const params = sender.getParameters();
      params.degradationPreference = 'maintain-resolution';
      await sender.setParameters(params);
    } catch (e) {}
  };
"""
