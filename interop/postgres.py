"""A real PostgreSQL 15 (Debian's) for interop tests: its own data folder, 127.0.0.1 on a free
port, fsync off. PostgreSQL refuses to run as root, so as root (CI) it runs as Debian's
`postgres` user (setpriv). `stop()` and `start()` restart it on the same port and data, as an
operator's restart does."""

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

from conftest import _free_tcp_port, log_tail

BINARIES = Path("/usr/lib/postgresql/15/bin")
USER = "sluice"
PASSWORD = "interop-pg-password-93b1"


class PostgresServer:
    def __init__(self, log_path: Path):
        if not (BINARIES / "postgres").exists():
            raise RuntimeError(f"{BINARIES}/postgres is missing: scripts/install-deps.sh --test installs postgresql")
        # Its own folder under /tmp: pytest's are root's alone (0700), which `postgres` cannot enter.
        directory = Path(tempfile.mkdtemp(prefix="sluice-interop-pg-"))
        os.chmod(directory, 0o755)
        self.directory = directory
        self.data = directory / "data"
        self.log_path = log_path
        self.port = _free_tcp_port()
        self.process: Optional[subprocess.Popen] = None
        self.owner = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
        password_file = directory / "password"
        password_file.write_text(PASSWORD)
        if self.owner:
            os.chown(directory, self.owner.pw_uid, self.owner.pw_gid)
            os.chown(password_file, self.owner.pw_uid, self.owner.pw_gid)
        made = subprocess.run(self._as_owner([str(BINARIES / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile",
                                              str(password_file), "--auth-local=trust", "--auth-host=scram-sha-256",
                                              "--no-sync", "--locale=C", "-E", "UTF8", "--no-instructions"]),
                              capture_output=True, text=True, cwd=directory)
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed: {made.stdout}{made.stderr}")

    def _as_owner(self, command: list) -> list:
        if not self.owner:
            return command
        return ["setpriv", f"--reuid={self.owner.pw_uid}", f"--regid={self.owner.pw_gid}", "--clear-groups", "--"] + command

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def start(self, timeout: float = 20.0) -> None:
        assert self.process is None or self.process.poll() is not None, "postgres is running already"
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            self._as_owner([str(BINARIES / "postgres"), "-D", str(self.data), "-p", str(self.port),
                            "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.directory}",
                            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.directory)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            ready = subprocess.run([str(BINARIES / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                                   capture_output=True)
            if ready.returncode == 0:
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"postgres did not start on port {self.port}:\n{log_tail(self.log_path)}")
            time.sleep(0.1)

    def stop(self) -> None:
        """A fast shutdown (SIGINT): open connections are cut, as in a restart."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=30)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def sql(self, statement: str, database: str = "postgres") -> str:
        done = subprocess.run(["psql", self.url(database), "-tAc", statement], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"psql: {done.stderr}")
        return done.stdout.strip()

    def create_database(self, name: str) -> str:
        self.sql(f"CREATE DATABASE {name}")
        return self.url(name)
