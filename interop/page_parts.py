"""JavaScript that several page scripts share, to splice into them.

- `OPEN_JS`: `open(url)` resolves to a JSON-RPC client with `call(method, params)` (a promise
  of the result) and `notes`, the notifications in order, each with `at` (performance.now()).
- `MAINTAIN_RESOLUTION_JS`: `maintainResolution(sender)`, so a busy machine drops frames
  rather than shrink what the tests measure (a resolution change is a key frame of its own).
- `PLAYERS_JS`: `api.update(name, constraints)` and `api.inbound(name)` (the video receive
  figures) for pages whose `api.players[name]` hold `{client, pc, handle}`.
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

PLAYERS_JS = r"""
  api.update = (name, constraints) => {
    const p = api.players[name];
    return p.client.call('update', {handle: p.handle, constraints});
  };

  api.inbound = async (name) => {
    let out = {framesDecoded: 0, frameWidth: 0, bytesReceived: 0, at: performance.now()};
    (await api.players[name].pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        out = {framesDecoded: s.framesDecoded || 0, frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0,
               bytesReceived: s.bytesReceived || 0, packetsLost: s.packetsLost || 0, nackCount: s.nackCount || 0,
               pliCount: s.pliCount || 0, freezeCount: s.freezeCount || 0,
               keyFramesDecoded: s.keyFramesDecoded || 0, framesPerSecond: s.framesPerSecond || 0,
               framesReceived: s.framesReceived || 0, framesDropped: s.framesDropped || 0,
               packetsReceived: s.packetsReceived || 0,
               decoder: s.decoderImplementation || '', at: performance.now()};
      }
    });
    return out;
  };
"""
