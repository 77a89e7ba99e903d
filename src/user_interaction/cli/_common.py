"""What every subcommand shares: the exit statuses, writing to stdout and stderr, the
argument types and options, tracing, and reading a request file."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import textwrap
from typing import TYPE_CHECKING, Callable, Final, TextIO

from user_interaction._answers_file import INVALID_ANSWERS_FILE, UNANSWERED_QUESTION
from user_interaction._errors import (
    AMBIGUOUS_PROVIDER,
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    DUPLICATE_PROVIDER,
    EMPTY_QUESTIONS,
    EXTENSION_FAILED,
    INVALID_ANSWER,
    INVALID_REQUEST,
    NO_PROVIDER,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    RELOAD_FAILED,
    UserInteractionError,
)
from user_interaction._json import loads
from user_interaction._manager import UserInteraction
from user_interaction._model import AskUserQuestionAnswer, AskUserQuestionRequest
from user_interaction.terminal import color_wanted, visible

PROG: Final = "user-interaction"

#: Answered (or: the command did what it was asked).
EXIT_OK: Final = 0
#: Any other failure: a file that cannot be read or written, a target that is not empty.
EXIT_ERROR: Final = 1
#: The command line itself is wrong (argparse's status).
EXIT_USAGE: Final = 2
#: The human cancelled or declined the question.
EXIT_DISMISSED: Final = 3
#: The ask was aborted (end of input, for one) or timed out.
EXIT_ABORTED: Final = 4
#: No usable provider: none chosen, not installed, ambiguous, or failed to load.
EXIT_NO_PROVIDER: Final = 5
#: The request is invalid (bad JSON, no questions, blank or duplicate ids or labels).
EXIT_INVALID_REQUEST: Final = 6
#: The provider (or an extension) failed or returned an invalid answer.
EXIT_PROVIDER_FAILED: Final = 7
#: A provider or extension failed with an error code of its own, one the core does not
#: define (the scripted provider's ``UNANSWERED_QUESTION``, ``INVALID_ANSWERS_FILE``, ...).
EXIT_PLUGIN_ERROR: Final = 8
#: The output cannot be written: stdout is closed or full (``ask``: the answer is lost).
EXIT_OUTPUT_FAILED: Final = 9
#: Interrupted with Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED: Final = 130

#: The exit status for each error code.
EXIT_STATUS: Final[dict[str, int]] = {
    ASK_CANCELLED: EXIT_DISMISSED,
    ASK_DECLINED: EXIT_DISMISSED,
    ASK_ABORTED: EXIT_ABORTED,
    ASK_TIMEOUT: EXIT_ABORTED,
    NO_PROVIDER: EXIT_NO_PROVIDER,
    PROVIDER_NOT_FOUND: EXIT_NO_PROVIDER,
    AMBIGUOUS_PROVIDER: EXIT_NO_PROVIDER,
    PROVIDER_LOAD_FAILED: EXIT_NO_PROVIDER,
    DUPLICATE_PROVIDER: EXIT_NO_PROVIDER,
    EMPTY_QUESTIONS: EXIT_INVALID_REQUEST,
    INVALID_REQUEST: EXIT_INVALID_REQUEST,
    INVALID_ANSWER: EXIT_PROVIDER_FAILED,
    PROVIDER_FAILED: EXIT_PROVIDER_FAILED,
    PROVIDER_DISPOSED: EXIT_PROVIDER_FAILED,
    RELOAD_FAILED: EXIT_PROVIDER_FAILED,
    EXTENSION_FAILED: EXIT_PROVIDER_FAILED,
    UNANSWERED_QUESTION: EXIT_PLUGIN_ERROR,
    INVALID_ANSWERS_FILE: EXIT_PLUGIN_ERROR,
}

#: ``1`` (or ``true``, ``yes``, ``on``) traces each ask; ``answers`` adds the answers' text.
TRACE_ENV: Final = "USER_INTERACTION_TRACE"
#: The :mod:`logging` logger the traces go to (that of ``extensions.TraceLog``).
TRACE_LOGGER: Final = "user_interaction.trace"

_TRACE_OFF: Final = frozenset({"", "0", "false", "no", "off"})

STATUS_EPILOG: Final = """\
exit status:
  0    answered (or the command succeeded)
  1    another failure (a file cannot be read or written, ...)
  2    usage error
  3    cancelled or declined by the human (ASK_CANCELLED, ASK_DECLINED; Ctrl-D at
       the stdio provider's terminal prompt)
  4    aborted or timed out (ASK_ABORTED, e.g. end of a piped input; ASK_TIMEOUT)
  5    no usable provider (NO_PROVIDER, PROVIDER_NOT_FOUND, AMBIGUOUS_PROVIDER,
       PROVIDER_LOAD_FAILED)
  6    invalid request (INVALID_REQUEST, EMPTY_QUESTIONS)
  7    the provider failed (PROVIDER_FAILED, INVALID_ANSWER, PROVIDER_DISPOSED)
  8    a provider's or extension's own error code (UNANSWERED_QUESTION,
       INVALID_ANSWERS_FILE, any code the core does not define)
  9    the output cannot be written (stdout closed or full)
  130  interrupted (Ctrl-C)
"""

#: The help formatter of every subcommand: descriptions and epilogs as written.
FORMATTER: Final = argparse.RawDescriptionHelpFormatter

if TYPE_CHECKING:
    #: What ``add_subparsers()`` returns, to which each subcommand adds its parser.
    Commands = argparse._SubParsersAction[argparse.ArgumentParser]


def exit_status(error: UserInteractionError) -> int:
    """The exit status for ``error``'s code: :data:`EXIT_STATUS` says, and a code it does
    not know is a plugin's own (:data:`EXIT_PLUGIN_ERROR`)."""
    return EXIT_STATUS.get(error.code, EXIT_PLUGIN_ERROR)


class Failure(Exception):
    """A failure of the command line itself (not of asking): one line and a status."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


def one_line(text: str) -> str:
    """``text`` on one line, safe to show: names and messages may come from installed
    distributions or a model, so escape sequences and invisible characters are shown."""
    return visible(" ".join(text.split()))


def say(text: str = "") -> None:
    """Print a line to stdout (:func:`write_out`)."""
    write_out(sys.stdout, text + "\n")


def write_out(stream: TextIO | None, text: str, *, what: str = "", flush: bool = False) -> None:
    """Write ``text`` to ``stream``, stdout. When stdout is closed (``>&-``) or the write
    fails (``>/dev/full``): one line and :data:`EXIT_OUTPUT_FAILED` (a broken pipe passes,
    for ``main`` to end quietly)."""
    if stream is None:
        raise Failure(f"cannot write {what or 'to stdout'}: stdout is closed", EXIT_OUTPUT_FAILED)
    try:
        stream.write(text)
        if flush:
            stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a closed file object
        where = f"{what} to stdout" if what else "to stdout"
        raise Failure(f"cannot write {where}: {exc}", EXIT_OUTPUT_FAILED) from exc


def drop_stdout() -> None:
    """Point file descriptor 1 at the null device: what is still buffered for a stdout that
    failed is dropped, instead of failing again (and noisily) as the process exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def say_error(text: str) -> None:
    """Report on stderr; with stderr closed (``2>&-``) or failing, the exit status alone
    tells (a traceback in its place would also change the status to 1)."""
    stream = sys.stderr
    if stream is None:
        return
    line = f"{PROG}: {one_line(text)}"
    if color_wanted(stream):
        line = f"\x1b[31m{line}\x1b[0m"  # red, and back
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # ValueError: a closed file object
        pass


def wrapped(text: str) -> str:
    """``text`` broken between words to the terminal's width (100 columns off a terminal),
    its continuation lines indented."""
    width = shutil.get_terminal_size((100, 24)).columns
    return textwrap.fill(
        text,
        max(40, width),
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def table(header: list[str], rows: list[list[str]]) -> None:
    """Print ``rows`` under ``header`` in columns two spaces apart."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for cells in [header, *rows]:
        say("  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip())


def forget_caught_interrupt() -> None:
    """Tell CPython that the KeyboardInterrupt just caught was handled.

    CPython (3.8 to 3.13 at least) flags a KeyboardInterrupt that leaves code run by a
    string ``exec``/``eval`` as unhandled even when a caller catches it; under
    ``python -m`` the interpreter then ends the process with SIGINT instead of its exit
    status, after a clean exit and with nothing on stderr. A Ctrl-C lands in such code
    easily: the first ask's lazy imports build namedtuples with ``eval``. Every string
    ``exec`` clears the flag as it starts, and this one does nothing else. A plugin's
    command that catches Ctrl-C calls it too.
    """
    exec("pass", {})


# -- tracing ----------------------------------------------------------------------------


def trace_mode(args: argparse.Namespace) -> str | None:
    """``None`` (off), ``"asks"`` or ``"answers"``, from the flags, then the environment."""
    if getattr(args, "trace_answers", False):
        return "answers"
    if getattr(args, "trace", False):
        return "asks"
    value = os.environ.get(TRACE_ENV, "").strip().lower()
    if value in _TRACE_OFF:
        return None
    return "answers" if value == "answers" else "asks"


def tracing_options() -> argparse.ArgumentParser:
    """The parent parser of ``--trace`` and ``--trace-answers``."""
    tracing = argparse.ArgumentParser(add_help=False)
    group = tracing.add_argument_group("tracing")
    group.add_argument(
        "--trace", action="store_true", help=f"log each ask to stderr (like {TRACE_ENV}=1)"
    )
    group.add_argument(
        "--trace-answers",
        action="store_true",
        help=f"log each ask with its answers (like {TRACE_ENV}=answers)",
    )
    return tracing


def _start_tracing() -> logging.Logger:
    logger = logging.getLogger(TRACE_LOGGER)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"{PROG}: trace: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


AskFunction = Callable[[UserInteraction, AskUserQuestionRequest], AskUserQuestionAnswer]


def asker(trace: str | None, provider: str, timeout: float | None) -> AskFunction:
    """``ui.ask_sync`` with ``timeout``; when tracing, with a :class:`TraceLog` extension
    added to each context it asks through (``provider`` is what the trace names)."""
    if trace is None:
        return lambda ui, request: ui.ask_sync(request, timeout=timeout)
    from user_interaction.extensions import TraceLog

    _start_tracing()
    with_answers = trace == "answers"

    def traced(ui: UserInteraction, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        if not ui.pluginmanager.has_plugin("trace"):
            ui.add_extension(TraceLog(answers=with_answers), name="trace")
        return ui.ask_sync(request, timeout=timeout)

    return traced


def compact(data: object) -> str:
    """``data`` as JSON on one line."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# -- argument types and shared options --------------------------------------------------


def seconds(text: str) -> float:
    """``--timeout SECONDS`` as an argparse ``type``: a positive, finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def count(text: str) -> int:
    """A whole number of at least 1, as an argparse ``type``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def add_provider_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--provider-option KEY=VALUE`` (repeatable; ``args.provider_option`` is a list
    of ``(key, value)`` for ``use(name, **options)``). Public so that a plugin's command
    (such as ``mcp-server``) takes the option exactly as ``ask`` does."""
    parser.add_argument(
        "--provider-option",
        action="append",
        default=[],
        type=_provider_option,
        metavar="KEY=VALUE",
        help="build the provider with this keyword option (repeatable; VALUE is parsed as "
        "JSON when it parses, else taken as a string), e.g. --provider-option port=8765",
    )


def _provider_option(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as a keyword option: VALUE parsed as JSON when it parses (JSON too
    deeply nested to parse stays a string)."""
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        value: object = loads(raw)
    except ValueError:
        value = raw
    return key, value


def read_request(source: str) -> AskUserQuestionRequest:
    """The request in file ``source`` (``-``: stdin): in the wire form (``multiSelect``),
    or as the model-facing tool's arguments (``multi_select``), read as the tool reads
    them."""
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as file:
                text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        where = "stdin" if source == "-" else repr(source)
        raise UserInteractionError(
            f"request: cannot read {where}: {exc}", INVALID_REQUEST, cause=exc
        ) from exc
    try:
        data = loads(text)
    except ValueError as exc:
        raise UserInteractionError(
            f"request: not valid JSON: {exc}", INVALID_REQUEST, cause=exc
        ) from exc
    if _in_tool_form(data):
        from user_interaction.tool import parse_arguments

        return parse_arguments(data)
    return AskUserQuestionRequest.from_dict(data)


def _in_tool_form(data: object) -> bool:
    """Whether a question of ``data`` uses the tool's own key, ``multi_select``."""
    questions = data.get("questions") if isinstance(data, dict) else None
    return isinstance(questions, list) and any(
        isinstance(question, dict) and "multi_select" in question for question in questions
    )
