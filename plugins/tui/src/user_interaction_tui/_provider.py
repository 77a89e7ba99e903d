"""The provider object: the manager's side of the full-screen prompt."""

from __future__ import annotations

import sys
import threading
from typing import ClassVar, Final, TextIO

from user_interaction import (
    PROVIDER_DISPOSED,
    AbortController,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)

from ._form import Form

__all__ = ["TuiProvider"]


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


def _disposed() -> UserInteractionError:
    return UserInteractionError("The tui provider was disposed.", PROVIDER_DISPOSED)


class TuiProvider:
    """Asks on a full-screen terminal prompt (prompt_toolkit).

    ``input`` and ``output`` are the terminal's streams, by default the process's stdin
    and stdout as they are at each ask. One question is a list of options (arrow keys or
    j/k move, Enter picks, Space ticks on a multi-select question, number keys jump, "o"
    or the "Other…" row types an answer, "n" adds notes beside the choice, "s" skips);
    several questions are one screen with a tab per question and a review page before
    Submit. Esc or Ctrl-C dismisses the ask (``ASK_CANCELLED``). Abort, timeout and
    disposal take the screen away at once and restore the terminal. Keys typed before a
    question appears are dropped.
    """

    #: A terminal shows one question at a time: the manager queues concurrent asks.
    serial: Final = True
    #: The name the manager reports for this provider.
    name: Final = "tui"
    #: Chosen before ``stdio`` (10) when no provider is named and both are available.
    priority: ClassVar[int] = 20

    @staticmethod
    def available() -> bool:
        """Only when stdin and stdout are both terminals (a full screen needs one)."""
        return _isatty(sys.stdin) and _isatty(sys.stdout)

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self._input = input
        self._output = output
        self._lock = threading.Lock()
        self._disposed = False
        self._stops: set[AbortController] = set()  # one per ask in progress, for dispose()

    def __repr__(self) -> str:
        state = "disposed" if self._disposed else "active"
        return f"<TuiProvider {state}>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show the questions of ``request`` on one screen until they are answered."""
        stop = AbortController()  # dispose() ends this ask through it
        signal = stop.signal
        if request.signal is not None:
            signal = AbortSignal.any([request.signal, signal])
        if signal.aborted:
            raise signal.error()
        with self._lock:
            if self._disposed:
                raise _disposed()
            self._stops.add(stop)
        try:
            from . import _app  # prompt_toolkit is imported here, on the first ask

            stdin = sys.stdin if self._input is None else self._input
            stdout = sys.stdout if self._output is None else self._output
            form = Form(request.questions)
            return await signal.race(_app.run(form, stdin, stdout, signal))
        finally:
            with self._lock:
                self._stops.discard(stop)

    def dispose(self) -> None:
        """Take every question off the screen; pending asks fail with
        ``PROVIDER_DISPOSED``."""
        with self._lock:
            if self._disposed:
                return
            self._disposed = True
            stops = list(self._stops)
            self._stops.clear()
        for stop in stops:
            stop.abort(_disposed())
