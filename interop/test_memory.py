"""The server's allocator (issue 33; docs/design.md, "Memory under churn").

The `sluice` executable links jemalloc, so that memory freed after a join goes back to the
system; glibc's arenas kept it. A linker flag such as --as-needed, or a package that drops
the dependency, would put the server back on glibc without any other test noticing: the
memory figure comes only from the 30-minute churn run (docs/testing.md, "Memory under churn").
"""

from pathlib import Path


def test_server_runs_on_jemalloc(server):
    status, _ = server.get("/health")
    assert status == 200
    maps = Path(f"/proc/{server.process.pid}/maps").read_text()
    assert "libjemalloc.so" in maps, "the server process has not loaded libjemalloc"
    log = server.log_path.read_text(errors="replace")
    lines = [line for line in log.splitlines() if "memory: " in line]
    assert lines, f"no 'memory:' line in {server.log_path}"
    assert "memory: jemalloc 5." in lines[0] and "background purge on" in lines[0], lines[0]
