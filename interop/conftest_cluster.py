"""Fixtures for cluster tests (interop/cluster.py): import them into a test module with
`from conftest_cluster import make_cluster  # noqa: F401`.
"""

import asyncio
import time

import pytest

from cluster import Cluster
from conftest import _safe_name


@pytest.fixture
def make_cluster(request, tmp_path):
    """make_cluster(count, overrides=None, workers=1, secret=..., secrets=...) -> a started Cluster (Redis and `count`
    nodes). On teardown every node that was not killed must exit 0 on SIGTERM, uncrashed."""
    made = []

    def make(count: int = 3, overrides=None, workers: int = 1, **options) -> Cluster:
        """`options`: `secret=` (every node's cluster.secret; None for none), `secrets=`
        ({index: secret or None}) and `node_overrides=` ({index: config sections}), as Cluster
        takes them."""
        cluster = Cluster(tmp_path / f"cluster{len(made)}", _safe_name(request.node.name), count,
                          overrides=overrides, workers=workers, **options)
        made.append(cluster)
        cluster.start()
        return cluster

    yield make
    problems = []
    for cluster in made:
        problems += cluster.stop_all()
    assert not problems, "\n\n".join(problems)


async def poll_until(probe, what: str, timeout: float = 15.0, interval: float = 0.2):
    """Calls `probe()` (plain or async) until it returns something truthy; that value."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = probe()
        if asyncio.iscoroutine(last):
            last = await last
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what} (last {last!r})")
        await asyncio.sleep(interval)
