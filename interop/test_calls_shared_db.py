"""Three servers on one `calls.database` file, started at once (issue 27: with three servers
whose configs sat in one folder, one start in six failed with "migrating the call log to schema
1: table calls already exists"). The SQLite migration is serialised between processes, so every
start must succeed, twenty times in a row, each time on a fresh file (the race is the first
migration). Each server stops cleanly on SIGTERM after the round.
"""

import sqlite3
import subprocess
import time

from conftest import (ARTIFACTS, _check_clean_exit, _free_tcp_port, _free_udp_range, _stop_server, log_tail,
                      require_binary, write_test_config)

ROUNDS = 20
SERVERS = 3
# Per round: three starts and /health answered (a start takes well under a second here).
ROUND_SECONDS = 15


def _health_ok(http_port: int) -> bool:
    import json
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/health", timeout=1) as response:
            return response.status == 200 and json.loads(response.read()).get("status") == "ok"
    except (OSError, ValueError):
        return False


def test_three_servers_on_one_call_log_file_all_start(tmp_path):
    binary = require_binary()
    started_at = time.monotonic()
    for round_number in range(ROUNDS):
        folder = tmp_path / f"round-{round_number}"
        folder.mkdir()
        database = folder / "calls.db"
        # Every config first, so the processes start within milliseconds of each other.
        servers = []
        for index in range(SERVERS):
            http_port = _free_tcp_port()
            config_path = folder / f"sluice-{index}.json"
            write_test_config(config_path, http_port, _free_udp_range(1), 1,
                              {"calls": {"database": str(database)}, "log": {"level": "info"}})
            log_path = ARTIFACTS / f"server-shared-db-{round_number}-{index}.log"
            servers.append((config_path, http_port, log_path))
        processes = []
        try:
            for config_path, _, log_path in servers:
                with open(log_path, "wb") as log:
                    processes.append(subprocess.Popen([str(binary), "--config", str(config_path)], stdout=log,
                                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            deadline = time.monotonic() + ROUND_SECONDS
            waiting = set(range(SERVERS))
            while waiting:
                for index in sorted(waiting):
                    process, (_, http_port, log_path) = processes[index], servers[index]
                    assert process.poll() is None, (
                        f"round {round_number}: server {index} exited with {process.returncode} before /health "
                        f"answered; log {log_path}:\n{log_tail(log_path)}")
                    if _health_ok(http_port):
                        waiting.discard(index)
                assert time.monotonic() < deadline, (
                    f"round {round_number}: servers {sorted(waiting)} did not answer /health within {ROUND_SECONDS} s")
                time.sleep(0.05)
        finally:
            for process, (_, _, log_path) in zip(processes, servers):
                _stop_server(process, log_path)
        for process, (_, _, log_path) in zip(processes, servers):
            _check_clean_exit(process, log_path)
        # One schema, migrated once, in the one file they shared.
        with sqlite3.connect(database) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == 1
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    print(f"{ROUNDS} rounds of {SERVERS} servers on one file in {time.monotonic() - started_at:.1f} s")
