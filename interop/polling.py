"""Waiting on a page's state with a generous bound: the tests assert on what the page shows,
never on how long it took."""

import asyncio
import time


async def poll(page, expression: str, predicate, timeout: float, what: str, interval: float = 0.1):
    """Evaluates `expression` until `predicate` holds on its value; fails with the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = await page.evaluate(expression)
        if predicate(last):
            return last
        await asyncio.sleep(interval)
    raise AssertionError(f"no {what} within {timeout} s; last: {last}")


SETTLE = 0.7      # seconds of frames already on their way when a mute or hold lands
QUIET = 1.5       # how long muted or held media must stay silent


async def growth_while_quiet(count, seconds: float = QUIET) -> int:
    """How much `count()` grew over `seconds`, after SETTLE for what was already in flight."""
    await asyncio.sleep(SETTLE)
    before = count()
    await asyncio.sleep(seconds)
    return count() - before
