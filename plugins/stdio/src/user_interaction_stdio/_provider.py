"""The provider: asks each question of a request in turn on a line-based console."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Final, TextIO

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AbortController,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)
from user_interaction.terminal import color_wanted

from . import _console
from ._text import PROMPT, echo, interpret, render_question

__all__ = ["StdioProvider"]

_WITHDRAWN: Final = "the question was withdrawn"


def _end_of_input(console: _console.Console | None = None) -> UserInteractionError:
    failure = None if console is None else console.failure
    message = "End of input: no answer can be read."
    if failure is not None:
        message = f"The input failed ({type(failure).__name__}: {failure}): no answer can be read."
    return UserInteractionError(message, ASK_ABORTED, cause=failure)


def _dismissed() -> UserInteractionError:
    return UserInteractionError(
        "The human dismissed the question (end of input, Ctrl-D, at the terminal).",
        ASK_CANCELLED,
    )


def _output_failed(failure: BaseException | None) -> UserInteractionError:
    """The output cannot show the question (stdout closed, ``/dev/full``, ...): the ask
    cannot go on, like at the end of the input."""
    if failure is None:
        message = "There is no output stream to show the question on (stdout is closed)."
    else:
        message = (
            f"The output failed ({type(failure).__name__}: {failure}): the question "
            "cannot be shown."
        )
    return UserInteractionError(message, ASK_ABORTED, cause=failure)


def _rows(stream: TextIO | None) -> int | None:
    """The height of the terminal ``stream`` shows on, or ``None`` off a terminal."""
    try:
        if stream is None or not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).lines or None
    except (AttributeError, OSError, ValueError):
        return None


def _notice(signal: AbortSignal, error: BaseException) -> str | None:
    """The line shown when a question on screen stops waiting, or ``None`` for none."""
    if signal.aborted:  # why the ask ended, even when that reached us as a cancellation
        error = signal.error()
    elif isinstance(error, asyncio.CancelledError):
        return f"(cancelled: {_WITHDRAWN})"
    if not isinstance(error, UserInteractionError):
        return None
    if isinstance(error.__cause__, asyncio.CancelledError):  # the caller was cancelled
        return f"(cancelled: {_WITHDRAWN})"
    if error.code == PROVIDER_DISPOSED:
        return f"(closed: {_WITHDRAWN})"
    if error.code == ASK_TIMEOUT:
        return f"(timed out: {_WITHDRAWN})"
    return f"(aborted: {_WITHDRAWN})"


class StdioProvider:
    """Asks on a terminal or through pipes: numbered options, one typed line per answer.

    ``input`` and ``output`` are text streams. Left out, they are the process's stdin and
    stdout as they are when used (``sys.stdin`` at the first ask, ``sys.stdout`` at each
    write, so a redirection of ``sys.stdout`` is followed). The questions of a request are
    asked one after another and answered together; asks wait their turn (``serial``), also
    across providers reading the same stream.

    Answers are typed as: a number (several on multi-select questions, separated by commas
    or spaces) or an option's exact label, optionally followed by ``# note`` for notes
    beside the choice (``2 # pin the version``), any other text for a custom answer,
    ``=text`` for literal text such as ``=42``, and ``-`` to skip. Each answer is echoed
    under its question; a request of several says ``Question n of m``; colour follows
    ``NO_COLOR``, ``FORCE_COLOR`` and ``TERM``. Option previews are shown under their
    option. End of input (a pipe or a file that ends) rejects with ``ASK_ABORTED``, now
    and for every later ask; so does an output that cannot be written (closed, full).
    Ctrl-D at a terminal prompt is the human dismissing the question: ``ASK_CANCELLED``,
    and the terminal stays usable.
    """

    #: A terminal shows one question at a time: the manager queues concurrent asks.
    serial: Final = True
    #: The name the manager reports for this provider.
    name: Final = "stdio"
    #: Below the full-screen terminal UI, above the web page.
    priority: Final = 10

    @staticmethod
    def available() -> bool:
        """Only when stdin is a terminal or a pipe."""
        return _console.readable_stdin()

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self._input = input
        self._output = output
        self._lock = threading.Lock()
        self._console: _console.Console | None = None

    def __repr__(self) -> str:
        streams = [
            "sys.stdin" if self._input is None else repr(self._input),
            "sys.stdout" if self._output is None else repr(self._output),
        ]
        return f"<StdioProvider input={streams[0]} output={streams[1]}>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show the questions of ``request`` in order and read one answer for each.

        Every wait goes through the ask's signal, which the manager fires on abort,
        timeout and disposal alike (``PROVIDER_DISPOSED`` for every pending ask, before
        ``dispose()``): the question then shows why it closed, and no list of pending
        asks is kept here."""
        signal = request.signal if request.signal is not None else AbortController().signal
        if signal.aborted:
            raise signal.error()
        console = self._claim()
        if console.eof:
            raise _end_of_input(console)
        turn = console.turns.request(asyncio.get_running_loop())
        try:
            await signal.race(turn)
        except BaseException:
            console.turns.abandon(turn)
            raise
        try:
            if console.eof:  # the ask before this one met the end of input
                raise _end_of_input(console)
            total = len(request.questions)
            answers = [
                await self._ask_question(console, signal, item, number, total)
                for number, item in enumerate(request.questions, 1)
            ]
        finally:
            console.turns.release()
        return AskUserQuestionAnswer(answers)

    def dispose(self) -> None:
        """Let go of the input: its reader thread ends when no other provider reads that
        stream. The asks still pending have already ended through their signals."""
        with self._lock:
            console, self._console = self._console, None
        if console is not None:
            _console.release(console)

    # -- internals -----------------------------------------------------------------------

    def _claim(self) -> _console.Console:
        with self._lock:
            if self._console is None:
                stream = sys.stdin if self._input is None else self._input
                if stream is None:  # e.g. pythonw: the process has no stdin at all
                    raise UserInteractionError("There is no input stream to read.", ASK_ABORTED)
                self._console = _console.claim(stream)
            return self._console

    async def _ask_question(
        self,
        console: _console.Console,
        signal: AbortSignal,
        item: AskUserQuestionItem,
        number: int,
        total: int,
    ) -> AskUserQuestionAnswerItem:
        console.discard_typeahead()  # a line typed before the question never answers it
        color = color_wanted(self._stream())
        rows = _rows(self._stream())
        block = render_question(
            item, number, total, color=color, rows=rows, time_left=signal.time_left()
        )
        self._write(block)
        while True:
            line = await self._read_line(console, signal)
            result = interpret(item, line)
            if isinstance(result, AskUserQuestionAnswerItem):
                # what was understood stays on the screen (and in its scrollback)
                self._write_quietly(echo(item, result, color=color))
                return result
            self._write(result + "\n")

    async def _read_line(self, console: _console.Console, signal: AbortSignal) -> str:
        future, prompted = console.read_line(asyncio.get_running_loop(), PROMPT)
        try:
            if not prompted:
                self._write(PROMPT)
            line = await signal.race(future)
        except BaseException as exc:
            console.withdraw(future)
            notice = _notice(signal, exc)
            if notice is not None:
                self._write_quietly(f"\n{notice}\n")
            raise
        if line is None:
            self._write_quietly("\n")  # end the prompt's line: what follows starts afresh
            if console.eof:
                raise _end_of_input(console)
            raise _dismissed()
        if not (console.echoes and _console.isatty(self._stream())):
            # the typing was not shown: end the prompt's line (the answer is read: keep it
            # even if the output has failed since)
            self._write_quietly("\n")
        return line

    def _stream(self) -> TextIO | None:
        return sys.stdout if self._output is None else self._output

    def _write(self, text: str) -> None:
        """Show ``text``; an output that is missing or fails ends the ask (``ASK_ABORTED``)."""
        output = self._stream()
        if output is None:  # e.g. the process was started with stdout closed (>&-)
            raise _output_failed(None)
        try:
            try:
                output.write(text)
            except UnicodeEncodeError:
                encoding = getattr(output, "encoding", None) or "ascii"
                output.write(text.encode(encoding, "backslashreplace").decode(encoding))
            output.flush()
        except (OSError, ValueError) as exc:  # full (ENOSPC), broken, or a closed file
            raise _output_failed(exc) from exc

    def _write_quietly(self, text: str) -> None:
        try:
            self._write(text)
        except UserInteractionError:  # a closed or broken output: the notice is optional
            pass
