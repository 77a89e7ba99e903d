"""What an inbox server keeps in memory about a pending ask (the store need not): who
waits on it, and its timers."""

from __future__ import annotations

import asyncio
import time
from typing import Final

from ._store import StoredAsk

__all__ = ["ABANDONED_AFTER", "Live", "Waiter"]

#: Seconds an unkeyed ask stays pending without its agent (no request waiting on it).
ABANDONED_AFTER: Final = 30.0


class Waiter:
    """One caller of a pending ask (the provider names itself with a random ``waiter``)."""

    __slots__ = ("holding", "seen")

    def __init__(self) -> None:
        self.holding = 0  # wait requests this caller holds now
        self.seen = time.monotonic()


class Live:
    """What the server keeps in memory about a pending ask."""

    __slots__ = ("abandoned", "ask", "done", "expiry", "waiters")

    def __init__(self, ask: StoredAsk) -> None:
        self.ask = ask
        self.done: asyncio.Future[StoredAsk] = asyncio.get_running_loop().create_future()
        self.waiters: dict[str, Waiter] = {}
        self.expiry: asyncio.TimerHandle | None = None
        self.abandoned: asyncio.TimerHandle | None = None

    def holding(self) -> int:
        return sum(waiter.holding for waiter in self.waiters.values())

    def others_present(self, waiter: str) -> bool:
        """Whether a caller besides ``waiter`` waits now or did in the last
        :data:`ABANDONED_AFTER` seconds (it may be between two wait requests)."""
        now = time.monotonic()
        return any(
            other.holding or now - other.seen < ABANDONED_AFTER
            for name, other in self.waiters.items()
            if name != waiter
        )

    def stop_timers(self) -> None:
        for handle in (self.expiry, self.abandoned):
            if handle is not None:
                handle.cancel()
        self.expiry = self.abandoned = None
