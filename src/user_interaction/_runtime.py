"""Threads the manager runs on: the event loop ``ask_sync()`` uses, and a pool of reused
worker threads for synchronous providers (so a blocking UI never blocks an event loop).

Daemon threads on purpose: a provider stuck in a blocking read must not keep the
interpreter from exiting (a ``concurrent.futures`` pool would join it at exit).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Callable, Final, Optional

__all__ = ["WORKERS", "LoopThread", "Workers"]

_CLOSE_GRACE: Final = 1.0
_SETTLE: Final = 0.05
#: How long an idle worker waits for another job before its thread ends.
_IDLE: Final = 30.0

#: A job returns what it hands back (run once its worker is idle again), or None.
Job = Callable[[], Optional[Callable[[], None]]]


class Workers:
    """Daemon threads taking jobs from one queue; one is started only when none is idle,
    and one idle for ``idle`` seconds ends."""

    def __init__(self, idle: float = _IDLE) -> None:
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._idle_timeout = idle

    def submit(self, job: Job) -> None:
        """Run ``job()`` on a worker thread; it must not raise.

        What the job returns runs after its worker counts as idle again, so a caller woken
        by it that submits the next job at once reuses that worker.
        """
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1
        self._jobs.put(job)
        if start:
            threading.Thread(
                target=self._serve, name="user-interaction-provider", daemon=True
            ).start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self._idle_timeout)
            except queue.Empty:
                with self._lock:
                    if self._idle:  # no job was meant for this worker: end it
                        self._idle -= 1
                        return
                continue  # a job is on its way to this worker
            hand_back = job()
            del job  # drop the finished ask before idling
            with self._lock:
                self._idle += 1
            if hand_back is not None:
                hand_back()


#: The pool the managers' synchronous providers run on.
WORKERS: Final = Workers()


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
