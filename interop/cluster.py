"""A real cluster for interop tests: one `redis-server` and N Sluice nodes from the release binary.

Node i (0-based) binds 127.0.0.(i+2) for everything: `server.host`, `rtc.bindAddress` and
`rtc.announcedAddresses`, and announces that address:its first media port as
`cluster.relayAddress`. Inside the interop namespace (`unshare -n`), `lo` carries all of
127.0.0.0/8, so each node has an address of its own, as on separate hosts. Redis listens on
127.0.0.1 (no persistence, its own temp dir), and can be stopped and started again on the
same port, empty, as after a restart.

Used through the fixtures of conftest_cluster.py; the cross-node tests reuse both.
"""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from conftest import (ARTIFACTS, CRASH_MARKERS, FATAL_WORD, REPO, _free_tcp_port, _free_udp_range,
                      log_tail, require_binary, write_test_config)

REDIS_BINARY = "/usr/bin/redis-server"
ADMIN_TOKEN = "cluster-admin-token"
# `cluster.secret` of every node unless a test says otherwise (the nodes' control channel).
CLUSTER_SECRET = "interop-cluster-secret-0123456789"


class RedisServer:
    """`redis-server` on 127.0.0.1:`port`, killed and restarted by the test."""

    def __init__(self, directory: Path, log_path: Path, port: Optional[int] = None, password: Optional[str] = None):
        """`password`: `requirepass`; the nodes' `cluster.redis` (`url`) and `command` carry it."""
        if not os.access(REDIS_BINARY, os.X_OK):
            raise RuntimeError(f"{REDIS_BINARY} is missing: scripts/install-deps.sh --test installs redis-server")
        self.port = port or _free_tcp_port()
        self.password = password
        self.directory = directory
        self.log_path = log_path
        self.process: Optional[subprocess.Popen] = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        credentials = f":{self.password}@" if self.password else ""
        return f"redis://{credentials}127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        assert self.process is None or self.process.poll() is not None, "redis-server is running already"
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [REDIS_BINARY, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.directory), "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "notice"]
            + (["--requirepass", self.password] if self.password else []),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.command("PING") == "PONG":
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not answer on port {self.port}:\n{log_tail(self.log_path)}")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGKILL, as when Redis's host dies: no goodbye to its clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def command(self, *args: str):
        """One command over a fresh connection; the reply decoded (str, int, None, list)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            reader = s.makefile("rb")
            if self.password:
                s.sendall(_command_bytes(("AUTH", self.password)))
                _read_reply(reader)
            s.sendall(_command_bytes(args))
            return _read_reply(reader)

    def keys(self, pattern: str = "sluice:*") -> list[str]:
        return sorted(self.command("KEYS", pattern))

    def stream_record(self, name: str) -> Optional[dict]:
        value = self.command("GET", f"sluice:stream:{name}")
        return json.loads(value) if value is not None else None


def _command_bytes(args) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def _read_reply(f):
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise OSError("redis closed the connection")
    kind, rest = line[:1], line[1:-2].decode()
    if kind == b"+":
        return rest
    if kind == b"-":
        raise RuntimeError(f"redis error: {rest}")
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2].decode()
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(f) for _ in range(n)]
    raise OSError(f"unexpected redis reply {line!r}")


@dataclass
class ClusterNode:
    index: int
    host: str
    node_id: str
    http_port: int
    media_port: int
    config_path: Path
    log_path: Path
    process: Optional[subprocess.Popen] = None
    killed: bool = False
    config: dict = field(default_factory=dict)
    # This node's `cluster.secret` (None: the node has none).
    secret: Optional[str] = None

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.http_port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    def start(self, timeout: float = 30.0) -> None:
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([str(require_binary()), "--config", str(self.config_path)], cwd=REPO,
                                        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.killed = False
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.node_id} exited with {self.process.returncode} before /health answered:\n"
                                   f"{log_tail(self.log_path)}")
            try:
                status, body = self.get("/health", auth=False)
                if status == 200 and body.get("status") == "ok":
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.node_id} /health did not answer within {timeout} s:\n{log_tail(self.log_path)}")
            time.sleep(0.1)

    def kill9(self) -> None:
        """SIGKILL: the node dies without leaving the cluster; its keys expire with their TTL."""
        assert self.process is not None and self.process.poll() is None, f"{self.node_id} is not running"
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.killed = True

    def stop(self) -> Optional[str]:
        """SIGTERM, then what was wrong with the way it ended (None when it exited 0, uncrashed)."""
        if self.process is None or self.killed:
            return None
        if self.process.poll() is not None:
            return f"{self.node_id} died during the test with {self.process.returncode}:\n{log_tail(self.log_path)}"
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return f"{self.node_id} did not exit within 15 s of SIGTERM:\n{log_tail(self.log_path)}"
        if self.process.returncode != 0:
            return f"{self.node_id} exited with {self.process.returncode} after SIGTERM:\n{log_tail(self.log_path)}"
        crash = [line for line in self.log_path.read_text(errors="replace").splitlines()
                 if CRASH_MARKERS.search(line) or (FATAL_WORD.search(line) and "alert" not in line.lower())]
        if crash:
            return f"{self.node_id} log {self.log_path} shows a crash:\n" + "\n".join(crash[:20])
        return None

    def get(self, path: str, auth: bool = True, timeout: float = 5.0):
        """(status, parsed JSON or text) of a GET on the node's HTTP port, with the admin token."""
        request = urllib.request.Request(self.http_url + path)
        if auth:
            request.add_header("Authorization", f"Bearer {ADMIN_TOKEN}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body, status = response.read().decode(), response.status
        except urllib.error.HTTPError as e:
            body, status = e.read().decode(errors="replace"), e.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body

    def request(self, method: str, path: str, body=None, token: Optional[str] = None, timeout: float = 5.0):
        """(status, parsed JSON or text) of any request; `body` (a dict) goes as JSON, `token`
        as `Authorization: Bearer` (the link endpoint takes the cluster secret)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.http_url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text, status = response.read().decode(), response.status
        except urllib.error.HTTPError as e:
            text, status = e.read().decode(errors="replace"), e.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def cluster_view(self) -> dict:
        """`GET /api/v1/cluster`: the cluster as this node last saw it."""
        status, body = self.get("/api/v1/cluster")
        assert status == 200 and isinstance(body, dict), f"{self.node_id} /api/v1/cluster answered {status} {body!r}"
        return body

    def metrics(self) -> str:
        status, body = self.get("/metrics", auth=False)
        assert status == 200 and isinstance(body, str), f"{self.node_id} /metrics answered {status}"
        return body


class Cluster:
    """Redis and `count` nodes; `stop_all()` ends them (SIGTERM) and says what went wrong."""

    def __init__(self, tmp_path: Path, name: str, count: int, overrides: Optional[dict] = None,
                 workers: int = 1, secret: Optional[str] = CLUSTER_SECRET,
                 secrets: Optional[dict[int, Optional[str]]] = None,
                 node_overrides: Optional[dict[int, dict]] = None, redis_password: Optional[str] = None):
        """`secret` is every node's `cluster.secret` (None: no node has one); `secrets` maps a
        node's index to its own (None: that node has none), for tests of a wrong or missing one.
        `node_overrides` maps a node's index to config sections that replace `overrides`' (as
        `{"apps": [...]}` with a hooks url of that node's own). `redis_password`: Redis wants
        it (`requirepass`), and every node's `cluster.redis` carries it."""
        self.redis = RedisServer(tmp_path / "redis", ARTIFACTS / f"cluster-{name}-redis.log", password=redis_password)
        self.nodes: list[ClusterNode] = []
        self.extra: list[ClusterNode] = []
        self.tmp_path = tmp_path
        self.name = name
        self.workers = workers
        self.overrides = overrides or {}
        self.secret = secret
        self.secrets = secrets or {}
        self.node_overrides = node_overrides or {}
        for i in range(count):
            self.nodes.append(self._make_node(i, cluster=True))

    def _make_node(self, index: int, cluster: bool) -> ClusterNode:
        host = f"127.0.0.{index + 2}"
        node_id = f"node{index + 1}"
        http_port = _free_tcp_port()
        media_port = _free_udp_range(self.workers)
        config_path = self.tmp_path / f"{node_id}.json"
        overrides = {section: (dict(values) if isinstance(values, dict) else values)
                     for section, values in self.overrides.items()}
        overrides.update(self.node_overrides.get(index, {}))
        overrides.setdefault("admin", {})["token"] = ADMIN_TOKEN
        secret = self.secrets.get(index, self.secret) if cluster else None
        if cluster:
            overrides["cluster"] = {"redis": self.redis.url, "nodeId": node_id,
                                    "relayAddress": f"{host}:{media_port}"}
            if secret is not None:
                overrides["cluster"]["secret"] = secret
        config = write_test_config(config_path, http_port, media_port, self.workers, overrides)
        # write_test_config binds 127.0.0.1: move everything of this node to its own address.
        config["server"]["host"] = host
        config["rtc"].update({"bindAddress": host, "announcedAddresses": [host]})
        config_path.write_text(json.dumps(config, indent=2) + "\n")
        log_path = ARTIFACTS / f"cluster-{self.name}-{node_id}.log"
        log_path.write_bytes(b"")
        return ClusterNode(index, host, node_id, http_port, media_port, config_path, log_path, config=config,
                           secret=secret)

    def standalone_node(self) -> ClusterNode:
        """One more node, on the next address, without a `cluster` section: a single server
        that knows no Redis (for controls). Started, and stopped with the others."""
        node = self._make_node(len(self.nodes) + len(self.extra), cluster=False)
        node.node_id = f"standalone{node.index + 1}"
        self.extra.append(node)
        node.start()
        return node

    @property
    def http_urls(self) -> list[str]:
        """Each cluster node's HTTP base (`http://127.0.0.N:port`), in node order."""
        return [node.http_url for node in self.nodes]

    def start(self) -> None:
        self.redis.start()
        for node in self.nodes:
            node.start()

    def stop_all(self) -> list[str]:
        problems = []
        for node in self.nodes + self.extra:
            problem = node.stop()
            if problem:
                problems.append(problem)
        self.redis.stop()
        return problems
