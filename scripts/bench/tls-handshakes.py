#!/usr/bin/env python3
"""TLS handshakes per second on Sluice's signaling port (server.tls), loopback only.

Each client process opens TCP connections to the port and does a full TLS handshake on each,
then closes it (optionally after one GET /health), for --seconds. No session is ever resumed:
every handshake is a full one (no session or ticket is passed back). The server's own CPU time
over the run (utime + stime from /proc) gives the CPU per handshake, which the client
processes on the same cores do not blur.

  scripts/bench/tls-handshakes.py --spawn                      # start .build/release/sluice with a throwaway cert
  scripts/bench/tls-handshakes.py --spawn --key rsa --tls12    # RSA-2048 and TLS 1.2
  scripts/bench/tls-handshakes.py --port 8443 --cafile ca.pem  # a running server (no CPU figure without --pid)

Prints one line of JSON (also written to artifacts/loadtest/tls-handshakes-<key>-<version>.json).
Needs only the standard library and the openssl command line (for --spawn).
"""

import argparse
import json
import multiprocessing
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certificate(folder: Path, key: str) -> tuple[Path, Path]:
    cert, private = folder / "cert.pem", folder / "key.pem"
    algorithm = ["-newkey", "rsa:2048"] if key == "rsa" else ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    subprocess.run(["openssl", "req", "-x509", *algorithm, "-nodes", "-keyout", str(private), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, private


def spawn_server(folder: Path, cert: Path, key: Path, binary: Path):
    port = free_port()
    config = json.loads((REPO / "conf" / "sluice.json").read_text())
    config["server"].update({"host": "127.0.0.1", "port": port, "tls": {"certificate": str(cert), "privateKey": str(key)}})
    config["rtc"].update({"bindAddress": "127.0.0.1", "port": free_port(socket.SOCK_DGRAM), "workers": 1,
                          "announcedAddresses": ["127.0.0.1"]})
    config.setdefault("log", {})["level"] = "warn"
    path = folder / "sluice.json"
    path.write_text(json.dumps(config))
    log = open(folder / "server.log", "wb")
    process = subprocess.Popen([str(binary), "--config", str(path)], cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    context = ssl.create_default_context(cafile=str(cert))
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/health", timeout=2, context=context) as r:
                if r.status == 200:
                    return process, port
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not come up; see {folder / 'server.log'}")
        time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def client(port: int, cafile: str, seconds: float, tls12: bool, request: bool, start, counts, index: int) -> None:
    context = ssl.create_default_context(cafile=cafile)
    context.options |= ssl.OP_NO_TICKET
    if tls12:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    start.wait()
    deadline = time.monotonic() + seconds
    done = failed = 0
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
                with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                    if request:
                        tls.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        while tls.recv(4096):
                            pass
            done += 1
        except OSError:
            failed += 1
    counts[index] = (done, failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spawn", action="store_true", help="start the release server with a throwaway certificate")
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "sluice"))
    parser.add_argument("--port", type=int, help="a running server's TLS port")
    parser.add_argument("--cafile", help="the CA (or self-signed certificate) of a running server")
    parser.add_argument("--pid", type=int, help="a running server's pid, for its CPU time")
    parser.add_argument("--key", choices=["ec", "rsa"], default="ec", help="with --spawn: P-256 (default) or RSA-2048")
    parser.add_argument("--tls12", action="store_true", help="TLS 1.2 (default: 1.3)")
    parser.add_argument("--request", action="store_true", help="one GET /health per connection as well")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--procs", type=int, default=4, help="client processes, each one connection at a time")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sluice-tls-bench-") as tmp:
        folder = Path(tmp)
        process = None
        if args.spawn:
            cert, key = make_certificate(folder, args.key)
            process, port = spawn_server(folder, cert, key, Path(args.binary))
            cafile, pid = str(cert), process.pid
        else:
            if not args.port or not args.cafile:
                parser.error("give --spawn, or --port and --cafile")
            port, cafile, pid = args.port, args.cafile, args.pid
        try:
            start = multiprocessing.Event()
            counts = multiprocessing.Manager().dict()
            workers = [multiprocessing.Process(target=client, args=(port, cafile, args.seconds, args.tls12, args.request,
                                                                    start, counts, i)) for i in range(args.procs)]
            for w in workers:
                w.start()
            time.sleep(0.5)
            cpu_before = cpu_seconds(pid) if pid else None
            began = time.monotonic()
            start.set()
            for w in workers:
                w.join()
            elapsed = time.monotonic() - began
            cpu = cpu_seconds(pid) - cpu_before if pid else None
        finally:
            if process is not None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=15)
    done = sum(c[0] for c in counts.values())
    failed = sum(c[1] for c in counts.values())
    result = {"handshakesPerSecond": round(done / elapsed, 1), "handshakes": done, "failed": failed,
              "seconds": round(elapsed, 2), "clientProcesses": args.procs, "tls": "1.2" if args.tls12 else "1.3",
              "key": ("RSA-2048" if args.key == "rsa" else "ECDSA P-256") if args.spawn else "as served",
              "withRequest": args.request, "resumption": False, "cores": os.cpu_count()}
    if cpu is not None and done:
        result["serverCpuSeconds"] = round(cpu, 2)
        result["serverCpuMicrosPerHandshake"] = round(cpu / done * 1e6, 1)
    print(json.dumps(result))
    out = REPO / "artifacts" / "loadtest"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"tls-handshakes-{args.key}-{result['tls']}.json").write_text(json.dumps(result, indent=2) + "\n")
    if failed and not done:
        sys.exit(1)


if __name__ == "__main__":
    main()
