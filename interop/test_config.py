"""`sluice --check-config`: the suite's own config is valid, and a broken one exits 2."""

import json
import subprocess

from conftest import DEFAULT_CONFIG, require_binary, write_test_config


def _check(binary, path):
    return subprocess.run([str(binary), "--config", str(path), "--check-config"],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)


def test_check_config(tmp_path):
    binary = require_binary()
    default = _check(binary, DEFAULT_CONFIG)
    assert default.returncode == 0, f"conf/sluice.json rejected: {default.returncode} {default.stdout}{default.stderr}"
    good = tmp_path / "good.json"
    write_test_config(good, 18080, 30000, 2)
    run = _check(binary, good)
    assert run.returncode == 0, f"the suite's config rejected: {run.returncode} {run.stdout}{run.stderr}"

    broken = tmp_path / "broken.json"
    broken.write_text('{"server": {"port": ')
    run = _check(binary, broken)
    assert run.returncode == 2, f"unparsable config: exit {run.returncode}, wanted 2; {run.stderr[-500:]}"
    wrong = tmp_path / "wrong.json"
    config = json.loads(good.read_text())
    config["server"]["port"] = "not a port"
    wrong.write_text(json.dumps(config))
    run = _check(binary, wrong)
    assert run.returncode == 2, f"server.port a string: exit {run.returncode}, wanted 2; {run.stderr[-500:]}"
