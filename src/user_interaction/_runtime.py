"""The event loop ``ask_sync()`` runs asks on, on a daemon thread of the manager's."""

from __future__ import annotations

import asyncio
import threading
from typing import Final

from ._threads import start_thread

__all__ = ["LoopThread"]

_CLOSE_GRACE: Final = 1.0
_SETTLE: Final = 0.05


class LoopThread:
    """An event loop on a daemon thread, started on first use and stopped by ``stop()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is not None:
            return loop
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                thread = threading.Thread(
                    target=_serve, args=(loop, ready), name="user-interaction-loop", daemon=True
                )
                start_thread(thread)
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def stop(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:
            return
        if thread is not threading.current_thread():
            thread.join(_CLOSE_GRACE * 5)


def _serve(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    try:
        loop.run_forever()
        tasks = asyncio.all_tasks(loop)
        if tasks:  # asks just failed by a dispose deliver that outcome first...
            loop.run_until_complete(asyncio.wait(tasks, timeout=_SETTLE))
            tasks = asyncio.all_tasks(loop)
        for task in tasks:
            task.cancel()
        if tasks:  # ...then the rest unwind; a stuck one is left behind
            loop.run_until_complete(asyncio.wait(tasks, timeout=_CLOSE_GRACE))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def stop_loop_thread(runner: LoopThread) -> None:
    """Finalizer-friendly wrapper (holds no reference to the manager)."""
    runner.stop()
