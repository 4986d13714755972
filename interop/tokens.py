"""Access tokens (docs/protocol.md section 6, "Access tokens") minted the way an app's backend
would: HS256 JWTs with Python's own hmac, independent of the server's code."""

import base64
import hashlib
import hmac
import json
import subprocess
import time
from pathlib import Path
from typing import Optional


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def mint(secret: str, claims: dict, header: Optional[dict] = None) -> str:
    header = header or {"alg": "HS256", "typ": "JWT"}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)


def claims(app: str, identity: Optional[str] = None, publish=(), play=(), ttl: int = 600, **extra) -> dict:
    now = int(time.time())
    out = {"iss": app, "exp": now + ttl, "publish": list(publish), "play": list(play), **extra}
    if identity is not None:
        out["sub"] = identity
    return out


def cli_token(binary: Path, config_path: Path, *arguments: str) -> str:
    """`sluice token create ...` against the test server's own config."""
    done = subprocess.run([str(binary), "token", "create", "--config", str(config_path), *arguments],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, (done.returncode, done.stderr)
    token = done.stdout.strip()
    assert token.count(".") == 2, token
    return token
