"""A pool of reused worker threads for synchronous providers, so a blocking UI never
blocks an event loop; each manager owns one.

Daemon threads on purpose: a provider stuck in a blocking read must not keep the
interpreter from exiting (a ``concurrent.futures`` pool would join it at exit).
"""

from __future__ import annotations

import queue
import threading
from typing import Callable, Final, Optional

from ._threads import start_thread

__all__ = ["WORKERS", "Workers"]

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
            start_thread(
                threading.Thread(target=self._serve, name="user-interaction-provider", daemon=True)
            )

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


#: The pool of the synchronous providers registered outside a manager (any's children).
WORKERS: Final = Workers()
