"""Starting a thread so that a Ctrl-C cannot leave it half started."""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = ["start_thread"]


def start_thread(thread: threading.Thread) -> None:
    """``thread.start()``, with a Ctrl-C that comes meanwhile held back until it returned.

    A ``KeyboardInterrupt`` raised inside ``Thread.start()`` leaves the new OS thread
    starting while the caller unwinds; when the program then exits, that thread starts
    its interpreter state during finalization and the process dies of SIGSEGV (seen on
    3.10) or waits for it forever. Held back, the interrupt is raised right after the
    start, where the caller's ``try``/``finally`` that stops the thread sees it. Python
    runs signal handlers on the main thread only, so elsewhere this is ``start()``.

    A Ctrl-C that comes before the handler is swapped in is raised before the start: a
    ``finally`` that joins the thread checks that it started (``thread.ident``).
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is None  # set outside Python: not restorable
    ):
        thread.start()
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        thread.start()
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        if callable(previous):
            previous(signal.SIGINT, None)
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt
