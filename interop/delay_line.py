"""A userspace UDP delay line: this kernel has no sch_netem, and no other qdisc delays.

It listens on (`listen_addr`, port) for each port given, and forwards each client's datagrams
`delay_ms` later to (`target_addr`, the same port) from a socket of its own per client, and
what comes back on that socket `delay_ms` later to the client. The server binds `target_addr`
and announces `listen_addr`, so ICE (the server is ICE-lite) takes the delayed path; every
packet stays on 127.0.0.0/8. It runs on the caller's asyncio loop and adds a few ms of its own
(3 to 19 ms to a 200 ms round trip with the pre-call probe's ~2000 packets a second here), so
keep the rates through it modest.
"""

import asyncio


class _Upstream(asyncio.DatagramProtocol):
    """The line's socket towards the server for one client."""

    def __init__(self, line, listener, client):
        self.line, self.listener, self.client = line, listener, client
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        self.line.later(lambda: self.listener.transport.sendto(data, self.client))


class _Listener(asyncio.DatagramProtocol):
    """The address clients send to, on one port."""

    def __init__(self, line, port):
        self.line, self.port = line, port
        self.transport = None
        self.upstreams: dict = {}
        self.waiting: dict = {}

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        upstream = self.upstreams.get(addr)
        if upstream is not None and upstream.transport is not None:
            self.line.later(lambda: upstream.transport.sendto(data))
            return
        # The first datagram of a client: open its upstream, then send what came meanwhile.
        self.waiting.setdefault(addr, []).append(data)
        if addr not in self.upstreams:
            self.upstreams[addr] = None
            asyncio.get_running_loop().create_task(self._open(addr))

    async def _open(self, client):
        loop = asyncio.get_running_loop()
        _, upstream = await loop.create_datagram_endpoint(
            lambda: _Upstream(self.line, self, client), remote_addr=(self.line.target_addr, self.port))
        self.upstreams[client] = upstream
        self.line.sockets.append(upstream.transport)
        for data in self.waiting.pop(client, []):
            self.line.later(lambda data=data: upstream.transport.sendto(data))


class DelayLine:
    def __init__(self, listen_addr: str, target_addr: str, ports: list[int], delay_ms: float):
        self.listen_addr, self.target_addr, self.ports = listen_addr, target_addr, ports
        self.delay = delay_ms / 1000
        self.sockets: list = []
        self.forwarded = 0

    def later(self, send) -> None:
        self.forwarded += 1
        asyncio.get_running_loop().call_later(self.delay, send)

    async def __aenter__(self):
        loop = asyncio.get_running_loop()
        for port in self.ports:
            transport, _ = await loop.create_datagram_endpoint(
                lambda port=port: _Listener(self, port), local_addr=(self.listen_addr, port))
            self.sockets.append(transport)
        return self

    async def __aexit__(self, *exc):
        for transport in self.sockets:
            transport.close()
