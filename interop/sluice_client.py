"""A small asyncio client for the Sluice wire protocol (docs/protocol.md section 1), over `websockets`.

Written from the protocol text only. Replies are matched to requests by id; notifications
(`session`, `streamStatus`, `streamEvent`) are kept in arrival order with the local monotonic
time they arrived, so a test can measure "within a second" promises on its own clock.
"""

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from websockets.asyncio.client import connect as ws_connect


class RpcError(Exception):
    """A JSON-RPC error reply."""

    def __init__(self, code: int, message: str, data: Any = None, id: Any = None):
        super().__init__(f"{code} {message} {data if data is not None else ''}".rstrip())
        self.code = code
        self.message = message
        self.data = data
        self.id = id

    @property
    def reason(self) -> Optional[str]:
        return self.data.get("reason") if isinstance(self.data, dict) else None


@dataclass
class Notification:
    method: str
    params: dict
    received_at: float  # time.monotonic() when the frame was read
    consumed: bool = field(default=False, repr=False)


class SluiceClient:
    """One signaling session over one WebSocket."""

    def __init__(self, ws):
        self.ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future] = {}
        self.null_id_replies: asyncio.Queue = asyncio.Queue()
        self.notifications: list[Notification] = []
        self._changed = asyncio.Condition()
        self.closed = asyncio.Event()
        self.close_code: Optional[int] = None
        self.unexpected: list[str] = []  # frames that are neither a reply we await nor a notification
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, timeout: float = 10.0, ssl=None) -> "SluiceClient":
        # No permessage-deflate, so the frame sizes the tests send are the sizes the server reads.
        # `ssl`: an SSLContext for a wss:// url (the default one trusts only the system's CAs).
        extra = {"ssl": ssl} if ssl is not None else {}
        ws = await asyncio.wait_for(
            ws_connect(url, max_size=None, compression=None, open_timeout=timeout, ping_interval=None, **extra),
            timeout,
        )
        return cls(ws)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        try:
            await self._reader
        except (asyncio.CancelledError, Exception):
            pass

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self._dispatch(raw)
        except Exception:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"socket closed (code {self.close_code})"))
            async with self._changed:
                self._changed.notify_all()

    def _dispatch(self, raw) -> None:
        now = time.monotonic()
        try:
            msg = json.loads(raw)
        except (ValueError, TypeError):
            self.unexpected.append(raw if isinstance(raw, str) else repr(raw))
            return
        if not isinstance(msg, dict):
            self.unexpected.append(raw)
            return
        if "method" in msg and "id" not in msg:
            self.notifications.append(Notification(msg["method"], msg.get("params") or {}, now))
            asyncio.get_running_loop().create_task(self._notify())
            return
        msg_id = msg.get("id")
        if msg_id is None:
            self.null_id_replies.put_nowait(msg)
            return
        fut = self._pending.pop(msg_id, None)
        if fut is not None and not fut.done():
            fut.set_result(msg)
        else:
            self.unexpected.append(raw)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # Requests

    async def send_raw(self, text) -> None:
        await self.ws.send(text)

    async def call_raw(self, method: str, params: Optional[dict] = None, timeout: float = 10.0) -> dict:
        """Sends a request and returns the whole reply object (result or error)."""
        msg_id = next(self._ids)
        request = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            request["params"] = params
        fut = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        await self.ws.send(json.dumps(request))
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._pending.pop(msg_id, None)

    async def call(self, method: str, params: Optional[dict] = None, timeout: float = 10.0) -> Any:
        """Sends a request; returns its result or raises RpcError."""
        reply = await self.call_raw(method, params, timeout)
        if "error" in reply:
            err = reply["error"] or {}
            raise RpcError(err.get("code"), err.get("message"), err.get("data"), reply.get("id"))
        if "result" not in reply:
            raise AssertionError(f"reply has neither result nor error: {reply}")
        return reply["result"]

    async def next_null_id_reply(self, timeout: float = 10.0) -> dict:
        try:
            return await asyncio.wait_for(self.null_id_replies.get(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"no reply with \"id\": null within {timeout} s; socket closed: "
                                 f"{self.closed.is_set()} (code {self.close_code}); other frames: "
                                 f"{[u[:200] for u in self.unexpected]}") from None

    async def connect(self, app_key: str = "defaultApp", **extra) -> dict:
        return await self.call("connect", {"appKey": app_key, **extra})

    async def publish(self, stream: str, sdp: str, constraints: Optional[dict] = None, **extra) -> dict:
        params = {"stream": stream, "sdp": sdp, **extra}
        if constraints is not None:
            params["constraints"] = constraints
        return await self.call("publish", params)

    async def play(self, stream: str, sdp: str, wait: bool = False,
                   constraints: Optional[dict] = None, **extra) -> dict:
        params = {"stream": stream, "sdp": sdp, **extra}
        if wait:
            params["wait"] = True
        if constraints is not None:
            params["constraints"] = constraints
        return await self.call("play", params)

    async def stop(self, handle: str) -> dict:
        return await self.call("stop", {"handle": handle})

    async def get_stats(self, handle: str) -> dict:
        return await self.call("getStats", {"handle": handle})

    async def ping(self) -> dict:
        return await self.call("ping")

    async def disconnect(self) -> dict:
        return await self.call("disconnect")

    # Notifications

    async def wait_notification(self, predicate: Callable[[Notification], bool],
                                timeout: float = 10.0, what: str = "notification") -> Notification:
        """The first notification not yet consumed that matches; marks it consumed."""
        async def scan():
            async with self._changed:
                while True:
                    for n in self.notifications:
                        if not n.consumed and predicate(n):
                            n.consumed = True
                            return n
                    if self.closed.is_set():
                        raise ConnectionError(f"socket closed (code {self.close_code}) while waiting for {what}")
                    await self._changed.wait()
        try:
            return await asyncio.wait_for(scan(), timeout)
        except asyncio.TimeoutError:
            seen = [(n.method, n.params) for n in self.notifications]
            raise AssertionError(f"no {what} within {timeout} s; notifications so far: {seen}") from None

    async def wait_status(self, handle: str, status: str, timeout: float = 10.0) -> Notification:
        return await self.wait_notification(
            lambda n: n.method == "streamStatus" and n.params.get("handle") == handle
            and n.params.get("status") == status,
            timeout, f"streamStatus {status} for {handle}")

    def statuses(self, handle: str) -> list[str]:
        return [n.params.get("status") for n in self.notifications
                if n.method == "streamStatus" and n.params.get("handle") == handle]
