"""Threads the manager runs on: the event loop ``ask_sync()`` uses, and a pool of reused
worker threads for synchronous providers (so a blocking UI never blocks an event loop).

Daemon threads on purpose: a provider stuck in a blocking read must not keep the
interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import threading
from _thread import allocate_lock
from typing import Callable, Final, Optional

__all__ = ["LoopThread", "WORKERS", "WorkerPool"]

_CLOSE_GRACE: Final = 1.0
_SETTLE: Final = 0.05
#: How long an idle worker waits for another job before its thread ends.
_IDLE: Final = 30.0

#: A job returns what it hands back (to run once its worker is idle again), or None.
Job = Callable[[], Optional[Callable[[], None]]]


class _Worker:
    __slots__ = ("job", "wake")

    def __init__(self, job: Job) -> None:
        self.job: Job | None = job
        self.wake = allocate_lock()
        self.wake.acquire()


class WorkerPool:
    """Daemon threads that run jobs and wait, idle, for the next one.

    The pool grows while every worker is busy (a worker blocked in a UI holds its thread)
    and shrinks as workers stay idle for ``idle`` seconds: no thread is started while one
    is idle, and none is kept that is not needed.
    """

    def __init__(self, idle: float = _IDLE) -> None:
        self._lock = allocate_lock()
        self._idle: list[_Worker] = []
        self._idle_timeout = idle

    def submit(self, job: Job) -> None:
        """Run ``job()`` on a worker thread; it must not raise.

        What the job returns runs after its worker is idle again, so a caller woken by it
        finds that worker free (a quick next job reuses it instead of starting a thread).
        """
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is not None:
            worker.job = job
            worker.wake.release()
            return
        worker = _Worker(job)
        worker.wake.release()
        threading.Thread(
            target=self._serve, args=(worker,), name="user-interaction-provider", daemon=True
        ).start()

    @property
    def idle(self) -> int:
        """How many workers wait for a job now."""
        return len(self._idle)

    def _serve(self, worker: _Worker) -> None:
        wake = worker.wake
        while True:
            if not wake.acquire(timeout=self._idle_timeout):
                with self._lock:
                    if worker in self._idle:  # still idle: this thread is not needed
                        self._idle.remove(worker)
                        return
                wake.acquire()  # a job was handed over just as the wait ran out
            job, worker.job = worker.job, None
            assert job is not None
            hand_back = job()
            job = None  # drop references to the finished ask before idling
            with self._lock:
                self._idle.append(worker)
            if hand_back is not None:
                hand_back()


#: The pool every manager's synchronous providers run on.
WORKERS: Final = WorkerPool()


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
