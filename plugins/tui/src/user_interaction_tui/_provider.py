"""The provider object: the manager's side of the full-screen prompt."""

from __future__ import annotations

import sys
from typing import ClassVar, Final, TextIO

from user_interaction import (
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    hookimpl,
)

from ._form import Form

__all__ = ["TuiProvider"]


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


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

    def __repr__(self) -> str:
        return "<TuiProvider>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show the questions of ``request`` on one screen until they are answered.

        The screen goes away when the ask's signal fires: the caller's abort, the timeout,
        or the provider's disposal (the manager fires the signal of every pending ask with
        ``PROVIDER_DISPOSED`` before it disposes the provider), so no list of pending asks
        is kept here."""
        signal = request.signal if request.signal is not None else AbortController().signal
        if signal.aborted:
            raise signal.error()
        from . import _app  # prompt_toolkit is imported here, on the first ask

        stdin = sys.stdin if self._input is None else self._input
        stdout = sys.stdout if self._output is None else self._output
        form = Form(request.questions)
        return await signal.race(_app.run(form, stdin, stdout, signal))
