"""Assertions on JSON-RPC error replies."""

from typing import Optional

from sluice_client import RpcError


async def expect_rpc_error(awaitable, code: int, reason: Optional[str] = None,
                           message: Optional[str] = None) -> RpcError:
    try:
        result = await awaitable
    except RpcError as e:
        assert e.code == code, f"wanted error {code}, got {e.code} {e.message!r} {e.data!r}"
        if reason is not None:
            assert e.reason == reason, f"error {code}: wanted reason {reason}, got data {e.data!r}"
        if message is not None:
            assert e.message == message, f"error {code}: wanted message {message!r}, got {e.message!r}"
        return e
    raise AssertionError(f"wanted error {code}, got result {result!r}")
