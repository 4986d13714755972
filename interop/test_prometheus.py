"""deploy/prometheus and deploy/grafana against a real Prometheus (Debian's) scraping a real
server while aiortc peers stream (docs/monitoring.md): promtool accepts the rules and the
example config; the scrape with metrics.token works and one with a wrong token is refused;
every rule loads and evaluates, every rule and dashboard expression is a query Prometheus
answers, and every metric they name is one the server exports."""

import asyncio
import json
import math
import re
import time
import urllib.request

import pytest

from conftest import REPO
from prometheus import prometheus, promtool
from sessions import close_all, play, publish

TOKEN = "metrics-token-of-the-prometheus-test"
RULES = REPO / "deploy" / "prometheus" / "sluice-rules.yml"
EXAMPLE = REPO / "deploy" / "prometheus" / "prometheus.yml"
DASHBOARD = REPO / "deploy" / "grafana" / "sluice-dashboard.json"
STREAM = "prometheus-cam"
PLAYERS = 3
WAIT = 30.0  # bound of each wait on Prometheus; never asserted on


@pytest.fixture
def server_config_overrides() -> dict:
    return {"metrics": {"token": TOKEN}}


def test_promtool_accepts_rules_and_example_config(tmp_path):
    in_file = _rules_in_file()
    checked = promtool("check", "rules", str(RULES))
    assert checked.returncode == 0 and f"SUCCESS: {in_file} rules found" in checked.stdout, \
        checked.stdout + checked.stderr
    # The example reads the token from /etc/prometheus; promtool checks that the file
    # exists, so check a copy that names one here (and the rules file beside it).
    token = tmp_path / "sluice-metrics.token"
    token.write_text(TOKEN)
    example = EXAMPLE.read_text()
    assert "credentials_file: /etc/prometheus/sluice-metrics.token" in example
    (tmp_path / "prometheus.yml").write_text(example.replace("/etc/prometheus/sluice-metrics.token", str(token)))
    (tmp_path / RULES.name).write_text(RULES.read_text())
    checked = promtool("check", "config", str(tmp_path / "prometheus.yml"))
    # promtool reads the rule files a config names: the count says it found this one.
    assert checked.returncode == 0 and f"SUCCESS: {in_file} rules found" in checked.stdout, \
        checked.stdout + checked.stderr


def _rules_in_file() -> int:
    return len(re.findall(r"^\s*- (?:record|alert):", RULES.read_text(), re.MULTILINE))


def _config(server, tmp_path) -> str:
    """One scrape job named as the rules expect, with two targets: the server with its token,
    and the same server with a wrong one (which must be refused)."""
    (tmp_path / "right.token").write_text(TOKEN)
    (tmp_path / "wrong.token").write_text(TOKEN + "-wrong")
    (tmp_path / RULES.name).write_text(RULES.read_text())
    target = server.http_url.removeprefix("http://")
    job = """
  - job_name: {name}
    scrape_interval: 1s
    scrape_timeout: 1s
    authorization:
      type: Bearer
      credentials_file: {token}
    static_configs:
      - targets: ["{target}"]
        labels: {{scrape: {name}}}
    relabel_configs:
      - target_label: job
        replacement: sluice
"""
    return ("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {tmp_path / RULES.name}\nscrape_configs:"
            + job.format(name="with-token", token=tmp_path / "right.token", target=target)
            + job.format(name="wrong-token", token=tmp_path / "wrong.token", target=target))


def _dashboard_exprs() -> list[str]:
    """Every panel's expressions with Grafana's variables as a query of all nodes over 1m."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"].replace("$__rate_interval", "1m").replace("$instance", ".*")
            # label_replace's "$1" is PromQL's; any other $ is a variable this test does not know.
            assert not re.search(r"\$(?!1\")", expr), f"panel {panel['title']!r}: unknown variable in {expr}"
            exprs.append(expr)
    return exprs


def _metric_names(expr: str) -> set[str]:
    # sluice_... but not the tail of a recording rule's name (sluice:...).
    return set(re.findall(r"(?<![\w:])sluice_[a-z_]+", expr))


async def _wait_for(prom, what: str, check):
    """Polls `check()` (run off the event loop, which carries the peers' media) until it
    returns something true; fails with the last value after WAIT seconds."""
    deadline = time.monotonic() + WAIT
    last = None
    while time.monotonic() < deadline:
        last = await asyncio.to_thread(check)
        if last:
            return last
        await asyncio.sleep(0.5)
    raise AssertionError(f"no {what} within {WAIT} s; last: {last}\nprometheus log:\n{prom.log()}")


def _values(prom, expr: str) -> list[tuple[dict, float]]:
    answer = prom.query(expr)
    assert answer.get("status") == "success", f"{expr}: {answer}"
    return [(r["metric"], float(r["value"][1])) for r in answer["data"]["result"]]


def test_rules_and_dashboard_on_a_live_server(server, tmp_path, artifacts):
    status, _ = server.get("/metrics")
    assert status == 401, f"/metrics without the token answered {status}"
    (tmp_path / "prometheus.yml").write_text(_config(server, tmp_path))
    with prometheus(tmp_path / "prometheus.yml", tmp_path / "tsdb", artifacts / "prometheus-test.log") as prom:
        asyncio.run(_while_streaming(server, prom))


async def _while_streaming(server, prom):
    pub, players = None, []
    try:
        pub = await publish(server.ws_url, STREAM)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        for _ in range(PLAYERS):
            players.append(await play(server.ws_url, STREAM))
        for p in players:
            await p.client.wait_status(p.handle, "PLAYING", 15)

        def up(scrape):
            return lambda: _values(prom, f'up{{job="sluice", scrape="{scrape}"}}')
        assert (await _wait_for(prom, "scrape with the token", up("with-token")))[0][1] == 1
        assert (await _wait_for(prom, "scrape with a wrong token", up("wrong-token")))[0][1] == 0
        targets = prom.api("targets")["data"]["activeTargets"]
        wrong = [t for t in targets if t["labels"].get("scrape") == "wrong-token"]
        assert wrong and "401" in wrong[0]["lastError"], wrong

        # Forwarded packets, through a recording rule of the file: the scrape, the rules and
        # the players' media all work.
        forwarded = await _wait_for(prom, "forwarded packets", lambda: [
            v for _, v in _values(prom, f'sluice:stream_packets_forwarded:rate1m{{stream="{STREAM}", kind="video"}}')
            if v > 0])
        print(f"prometheus: {forwarded[0]:.1f} video packets/s forwarded to {PLAYERS} players (rate over 1m, window still filling)")
        delays = await _wait_for(prom, "a forward delay p99", lambda: [
            v for _, v in _values(prom, "sluice:worker_forward_delay_us:p99_1m") if not math.isnan(v)])
        assert all(0 < v <= 10_000 for v in delays), delays
        assert [v for _, v in _values(prom, "sluice:nodes_up:count")] == [1]

        await _check_rules(prom)
        await _check_expressions(server, prom)

        # The up alert sees the refused target (pending: its for: outlasts the test), and
        # nothing else is wrong with this server.
        def down():
            alerts = prom.api("alerts")["data"]["alerts"]
            return {a["labels"].get("scrape") for a in alerts if a["labels"]["alertname"] == "SluiceDown"}
        assert await _wait_for(prom, "SluiceDown for the wrong token", down) == {"wrong-token"}
        alerts = prom.api("alerts")["data"]["alerts"]
        assert not [a for a in alerts if a["labels"]["alertname"] == "SluiceNodeLost"], alerts
    finally:
        await close_all(*players, pub)


async def _check_rules(prom):
    """Both groups loaded with every rule in the file, each evaluated without error."""
    in_file = _rules_in_file()

    def evaluated():
        groups = prom.api("rules")["data"]["groups"]
        rules = [r for g in groups for r in g["rules"]]
        failed = [(r["name"], r.get("lastError")) for r in rules if r["health"] == "err"]
        assert not failed, f"rules that failed to evaluate: {failed}"
        return groups if rules and all(r["health"] == "ok" for r in rules) else None

    groups = await _wait_for(prom, "every rule evaluated", evaluated)
    assert {g["name"] for g in groups} == {"sluice-recording", "sluice-alerts"}, [g["name"] for g in groups]
    rules = [r for g in groups for r in g["rules"]]
    assert len(rules) == in_file, f"{len(rules)} rules loaded, {in_file} in {RULES.name}"
    for rule in rules:
        if rule["type"] == "alerting":
            assert rule["labels"].get("severity") in ("warning", "critical"), rule
            assert rule["annotations"].get("summary") and rule["annotations"].get("description"), rule


async def _check_expressions(server, prom):
    """Every rule's and panel's expression is answered with status success, and names only
    metrics the server exports (a misspelled name would be answered too, with nothing)."""
    groups = prom.api("rules")["data"]["groups"]
    exprs = [r["query"] for g in groups for r in g["rules"]] + _dashboard_exprs()
    recorded = {r["name"] for g in groups for r in g["rules"] if r["type"] == "recording"}
    failures = []
    for expr in exprs:
        answer = await asyncio.to_thread(prom.query, expr)
        if answer.get("status") != "success":
            failures.append((expr, answer.get("error")))
    assert not failures, "expressions Prometheus refused:\n" + "\n".join(f"{e}: {err}" for e, err in failures)
    text = await asyncio.to_thread(lambda: _scrape(server))
    exported = set(re.findall(r"^# TYPE (\S+)", text, re.MULTILINE))
    named = set().union(*(_metric_names(e) for e in exprs))
    assert named - exported == set(), f"metrics named but not exported: {named - exported}"
    used = set().union(*(re.findall(r"sluice:[a-z0-9_:]+", e) for e in exprs))
    assert used <= recorded, f"recording rules used but not defined: {used - recorded}"
    assert len(named) >= 20, sorted(named)


def _scrape(server) -> str:
    request = urllib.request.Request(server.http_url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.read().decode()
