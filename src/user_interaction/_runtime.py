"""Threads the manager runs on: the event loop ``ask_sync()`` uses, and one daemon thread
per call of a synchronous provider (so a blocking UI never blocks an event loop).

Daemon threads on purpose: a provider stuck in a blocking read must not keep the
interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any, Callable, Final

__all__ = ["LoopThread", "run_in_thread", "settle"]

_CLOSE_GRACE: Final = 1.0
_SETTLE: Final = 0.05


def settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Set a result or exception unless the future is already done (loop thread only)."""
    if not future.done():
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


def run_in_thread(
    loop: asyncio.AbstractEventLoop,
    function: Callable[[], Any],
    finished: Callable[[], None] | None = None,
) -> asyncio.Future[Any]:
    """Run ``function`` on a new daemon thread; its outcome arrives in the returned future.

    ``finished`` runs on that thread when ``function`` returns, whether or not anyone still
    waits for the future (a caller may have given up on a stuck provider).
    """
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, context.run(function))
        except BaseException as exc:  # handed to the waiting coroutine, not lost
            outcome = (False, exc)
        finally:
            if finished is not None:
                finished()
        try:
            loop.call_soon_threadsafe(settle, future, *outcome)
        except RuntimeError:  # the loop has closed; nobody is waiting any more
            pass

    threading.Thread(target=work, name="user-interaction-provider", daemon=True).start()
    return future


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
                thread.start()
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
