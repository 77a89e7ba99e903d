"""The command line: ``user-interaction`` (also ``python -m user_interaction``).

======================  ==============================================================
``providers``           list the installed providers (``--check`` imports each one)
``extensions``          list the installed extensions (``--check`` imports each one)
``ask QUESTION``        ask a human through a provider; print the answer
``dev PROVIDER``        ask again and again, hot-reloading the provider on every save
``new-provider NAME``   write a pip-installable provider distribution to start from
======================  ==============================================================

Distributions add commands of their own through the ``user_interaction.commands``
entry-point group: ``mcp-server`` (user-interaction-mcp) and ``inbox``
(user-interaction-inbox) come this way.

Every :class:`~user_interaction.UserInteractionError` ends the command with one line on
stderr (``user-interaction: CODE: message``) and an exit status per failure class, see
:data:`EXIT_STATUS`. ``USER_INTERACTION_TRACE=1`` (or ``--trace``) logs each ask through
:mod:`logging`; the answers' text only with ``USER_INTERACTION_TRACE=answers``.

This module is imported only when the command line runs, never by
``import user_interaction``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import textwrap
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Final, Iterator, Sequence, TextIO

from . import __version__
from ._answers_file import INVALID_ANSWERS_FILE, UNANSWERED_QUESTION
from ._cli_commands import OWN_COMMANDS, CommandLoadError, OwnCommand, installed_commands
from ._discovery import (
    ENTRY_POINT_GROUP,
    PROVIDER_ENV,
    ProviderInfo,
    Ranking,
    best_provider,
    find_provider,
)
from ._errors import (
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
from ._json import loads
from ._manager import UserInteraction
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)
from .terminal import color_wanted, visible

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "EXIT_ABORTED",
    "EXIT_DISMISSED",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID_REQUEST",
    "EXIT_NO_PROVIDER",
    "EXIT_OK",
    "EXIT_OUTPUT_FAILED",
    "EXIT_PLUGIN_ERROR",
    "EXIT_PROVIDER_FAILED",
    "EXIT_STATUS",
    "EXIT_USAGE",
    "PROG",
    "TRACE_ENV",
    "TRACE_LOGGER",
    "build_parser",
    "exit_status",
    "add_provider_option",
    "main",
    "seconds",
]

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
_DEFAULT_ID: Final = "question"


def exit_status(error: UserInteractionError) -> int:
    """The exit status for ``error``'s code: :data:`EXIT_STATUS` says, and a code it does
    not know is a plugin's own (:data:`EXIT_PLUGIN_ERROR`)."""
    return EXIT_STATUS.get(error.code, EXIT_PLUGIN_ERROR)


class _Failure(Exception):
    """A failure of the command line itself (not of asking): one line and a status."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


def _one_line(text: str) -> str:
    """``text`` on one line, safe to show: names and messages may come from installed
    distributions or a model, so escape sequences and invisible characters are shown."""
    return visible(" ".join(text.split()))


def _print(text: str = "") -> None:
    """Print a line to stdout (:func:`_write_out`)."""
    _write_out(sys.stdout, text + "\n")


def _write_out(stream: TextIO | None, text: str, *, what: str = "", flush: bool = False) -> None:
    """Write ``text`` to ``stream``, stdout. When stdout is closed (``>&-``) or the write
    fails (``>/dev/full``): one line and :data:`EXIT_OUTPUT_FAILED` (a broken pipe passes,
    for :func:`main` to end quietly)."""
    if stream is None:
        raise _Failure(f"cannot write {what or 'to stdout'}: stdout is closed", EXIT_OUTPUT_FAILED)
    try:
        stream.write(text)
        if flush:
            stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a closed file object
        where = f"{what} to stdout" if what else "to stdout"
        raise _Failure(f"cannot write {where}: {exc}", EXIT_OUTPUT_FAILED) from exc


def _drop_stdout() -> None:
    """Point file descriptor 1 at the null device: what is still buffered for a stdout that
    failed is dropped, instead of failing again (and noisily) as the process exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _say_error(text: str) -> None:
    """Report on stderr; with stderr closed (``2>&-``) or failing, the exit status alone
    tells (a traceback in its place would also change the status to 1)."""
    stream = sys.stderr
    if stream is None:
        return
    line = f"{PROG}: {_one_line(text)}"
    if color_wanted(stream):
        line = f"\x1b[31m{line}\x1b[0m"  # red, and back
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # ValueError: a closed file object
        pass


# -- tracing ----------------------------------------------------------------------------


def _trace_mode(args: argparse.Namespace) -> str | None:
    """``None`` (off), ``"asks"`` or ``"answers"``, from the flags, then the environment."""
    if getattr(args, "trace_answers", False):
        return "answers"
    if getattr(args, "trace", False):
        return "asks"
    value = os.environ.get(TRACE_ENV, "").strip().lower()
    if value in _TRACE_OFF:
        return None
    return "answers" if value == "answers" else "asks"


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


def _asker(trace: str | None, provider: str, timeout: float | None) -> AskFunction:
    """``ui.ask_sync`` with ``timeout``; when tracing, with a :class:`TraceLog` extension
    added to each context it asks through (``provider`` is what the trace names)."""
    if trace is None:
        return lambda ui, request: ui.ask_sync(request, timeout=timeout)
    from .extensions import TraceLog

    _start_tracing()
    with_answers = trace == "answers"

    def traced(ui: UserInteraction, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        if not ui.pluginmanager.has_plugin("trace"):
            ui.add_extension(TraceLog(answers=with_answers), name="trace")
        return ui.ask_sync(request, timeout=timeout)

    return traced


def _compact(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# -- the parser -------------------------------------------------------------------------


def seconds(text: str) -> float:
    """``--timeout SECONDS`` as an argparse ``type``: a positive, finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


_ASK_EXAMPLES: Final = """\
examples:
  user-interaction ask "Deploy to production?" -o Yes -o No
  answer=$(user-interaction ask "Which package manager?" -o pnpm -o "npm=the default")
  user-interaction ask "Which checks?" --multi -o lint -o tests --json
  user-interaction ask "Release name?" --provider web --timeout 300
  user-interaction ask --request request.json    # wire JSON, or the tool's arguments

"""

_EXIT_EPILOG: Final = """\
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


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``user-interaction`` argument parser, with one sub-parser per command.

    Commands from plugins (``user_interaction.commands``) are listed without importing
    them; the one ``argv`` runs, if any, is imported and adds its own arguments.
    """
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Ask a human from a shell script, list providers, develop a provider.",
        epilog=_EXIT_EPILOG
        + f"\nenvironment:\n  {PROVIDER_ENV}  the provider used when none is named\n"
        f"  {TRACE_ENV}     1: log each ask to stderr; answers: with the answers",
        formatter_class=formatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in errors and in the questions of the terminal providers: auto (on a "
        "terminal, unless NO_COLOR is set or TERM=dumb), always (like FORCE_COLOR=1) or "
        "never (like NO_COLOR=1)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

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

    providers = commands.add_parser(
        "providers",
        help="list the installed providers",
        description="List the installed providers without importing them; the default "
        f"one (from {PROVIDER_ENV}, or the only one installed; with --check, the available "
        "one of highest priority) is marked with '*'.",
        epilog="exit status: 0, or 5 when --check finds a provider that fails to load",
        formatter_class=formatter,
    )
    providers.add_argument("--json", action="store_true", help="print JSON")
    providers.add_argument(
        "--check",
        action="store_true",
        help="also import each provider: show its priority and availability, build the "
        "available ones and report failures",
    )
    providers.set_defaults(run=_run_providers)

    extensions = commands.add_parser(
        "extensions",
        help="list the installed extensions",
        description="List the installed extensions (entry-point group "
        "'user_interaction.extensions') without importing them, and whether every context "
        "loads them (autoload, or USER_INTERACTION_EXTENSIONS when "
        "USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD is set).",
        epilog="exit status: 0, or 7 when --check finds an extension that fails to load",
        formatter_class=formatter,
    )
    extensions.add_argument("--json", action="store_true", help="print JSON")
    extensions.add_argument(
        "--check", action="store_true", help="also import each extension and report failures"
    )
    extensions.set_defaults(run=_run_extensions)

    decisions = commands.add_parser(
        "decisions",
        help="list or forget remembered approvals",
        description="List or forget the approvals remembered as 'Always allow' or 'Always "
        "deny' (by RememberedDecisions, or every context when USER_INTERACTION_DECISIONS "
        "is set).",
        epilog="exit status: 0; 1 when the file cannot be read or NAME is not remembered",
        formatter_class=formatter,
    )
    _cli_decisions().add_arguments(decisions)
    decisions.set_defaults(run=_run_decisions)

    ask = commands.add_parser(
        "ask",
        parents=[tracing],
        help="ask a question and print the answer",
        description="Ask through a provider and print the answer: the chosen label(s) or "
        "the custom text, one per line (the wire JSON with --json). Only the answer goes "
        "to stdout: when stdout is not a terminal, whatever the provider prints there "
        "goes to stderr, so answer=$(user-interaction ask ...) works.",
        epilog=_ASK_EXAMPLES + _EXIT_EPILOG,
        formatter_class=formatter,
    )
    ask.add_argument("question", nargs="?", metavar="QUESTION", help="the question to ask")
    ask.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="LABEL[=DESCRIPTION]",
        help="an option (repeat for several); split at the first '='",
    )
    ask.add_argument("--multi", action="store_true", help="let the human pick several options")
    ask.add_argument("--header", metavar="TEXT", help='a short heading, like "Confirm"')
    ask.add_argument("--detail", metavar="TEXT", help="supporting text shown with the question")
    ask.add_argument(
        "--id", metavar="ID", help=f"the question's id in --json output (default: {_DEFAULT_ID})"
    )
    ask.add_argument(
        "--request",
        metavar="FILE",
        help="read a request (JSON, in the wire form or as the ask_user_question tool's "
        "arguments) from FILE, or from stdin with '-'",
    )
    ask.add_argument(
        "--provider",
        "-p",
        metavar="NAME",
        help=f"the provider to ask; by default the one {PROVIDER_ENV} names, else the only "
        "one installed, else the available one of highest priority (e.g. tui on a "
        "terminal, else stdio, else web): 'user-interaction providers --check' shows which",
    )
    add_provider_option(ask)
    ask.add_argument("--timeout", type=seconds, metavar="SECONDS", help="give up after SECONDS")
    ask.add_argument("--json", action="store_true", help="print the answer as wire JSON")
    ask.set_defaults(run=_run_ask, parser=ask)

    dev = commands.add_parser(
        "dev",
        parents=[tracing],
        help="develop a provider: ask again and again, hot-reload on save",
        description="Ask a sample request (or --request FILE) again and again through "
        "PROVIDER, an installed provider's name or a Python file (path.py or "
        "path.py:Class) that defines one. When a watched file changes, the provider is "
        "reloaded: the question on screen finishes on the old code, the next one uses the "
        "new code; an edit that fails to import keeps the old provider. Stop with Ctrl-C.",
        formatter_class=formatter,
    )
    dev.add_argument("provider", metavar="PROVIDER", help="a provider name or a .py file")
    dev.add_argument("--request", metavar="FILE", help="ask this wire-format request instead")
    dev.add_argument(
        "--watch",
        action="append",
        default=[],
        metavar="PATH",
        help="also watch PATH, a file or directory (repeatable)",
    )
    dev.add_argument(
        "--watcher",
        choices=("auto", "watchfiles", "poll"),
        default="auto",
        help="how to watch: watchfiles when installed (auto), or polling",
    )
    dev.add_argument(
        "--poll-interval",
        type=seconds,
        default=0.5,
        metavar="SECONDS",
        help="seconds between two polls (default: 0.5)",
    )
    dev.add_argument("--rounds", type=_count, metavar="N", help="stop after N asks")
    dev.add_argument(
        "--on-change",
        action="store_true",
        help="ask once, then once after each successful reload",
    )
    dev.add_argument("--timeout", type=seconds, metavar="SECONDS", help="timeout of each ask")
    dev.add_argument(
        "--traceback", action="store_true", help="print the traceback behind a failed ask"
    )
    dev.set_defaults(run=_run_dev, parser=dev)

    new = commands.add_parser(
        "new-provider",
        help="create a provider distribution to start from",
        description="Write a pip-installable provider distribution: pyproject.toml "
        "(hatchling, the entry point), src/user_interaction_NAME/__init__.py (a working "
        "line-based provider to replace), tests/test_NAME.py and README.md.",
        formatter_class=formatter,
    )
    new.add_argument("name", metavar="NAME", help="the provider's name, e.g. 'web' or 'my-ui'")
    new.add_argument(
        "--directory",
        "-d",
        metavar="DIR",
        help="where to write it (default: ./user-interaction-NAME); must be empty or new",
    )
    new.set_defaults(run=_run_new_provider, parser=new)

    _add_plugin_commands(commands, argv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the status."""
    if argv is None:
        argv = sys.argv[1:]
    try:
        parser = build_parser(argv)
    except CommandLoadError as exc:
        _say_error(str(exc))
        return EXIT_ERROR
    args = parser.parse_args(argv)
    with _colour(args.color):
        return _run(args)


@contextmanager
def _colour(choice: str) -> Iterator[None]:
    """``--color``: set the variables everything here follows (the providers too) for
    the command's run, as NO_COLOR and FORCE_COLOR would."""
    wanted: dict[str, str | None] = {}
    if choice == "always":
        wanted = {"FORCE_COLOR": "1", "NO_COLOR": None}
    elif choice == "never":
        wanted = {"NO_COLOR": "1"}
    saved = {name: os.environ.get(name) for name in wanted}
    for name, value in wanted.items():
        _set_env(name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            _set_env(name, value)


def _set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _run(args: argparse.Namespace) -> int:
    try:
        status: int = args.run(args)
        if sys.stdout is not None:
            _write_out(sys.stdout, "", flush=True)
    except UserInteractionError as error:
        _say_error(f"{error.code}: {error.message}")
        return exit_status(error)
    except _Failure as failure:
        _say_error(str(failure))
        if failure.status == EXIT_OUTPUT_FAILED:
            _drop_stdout()
        return failure.status
    except KeyboardInterrupt:
        from ._cli_dev import _forget_caught_interrupt

        _forget_caught_interrupt()  # or CPython may still end the process by SIGINT
        _say_error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `user-interaction providers | head -1`
        _drop_stdout()
        return EXIT_ERROR
    return status


# -- providers --------------------------------------------------------------------------


def _default_name(infos: Sequence[ProviderInfo], checked: Sequence[_Checked] | None) -> str | None:
    """The name ``use()`` picks when given none, or ``None`` when it would pick none (or,
    without ``--check``, cannot tell without importing)."""
    chosen = os.environ.get(PROVIDER_ENV, "").strip()
    if chosen:
        return chosen
    if checked is None:  # unimported: only a single candidate is known to be the pick
        names = {info.name for info in infos}
        return names.pop() if len(names) == 1 else None
    try:
        return best_provider(tuple(infos)).name
    except UserInteractionError:
        return None


class _Checked:
    """What ``--check`` learnt of one provider: its ranking, and whether it loads."""

    def __init__(self, ranking: Ranking | None, error: UserInteractionError | None) -> None:
        self.ranking = ranking
        self.error = error


def _check(info: ProviderInfo) -> _Checked:
    """Rank ``info`` and, if it is available here, build its provider and dispose it.

    A provider that is unavailable here (``available()`` false) is not built: it is not
    broken, it just would not be chosen without its name.
    """
    try:
        ranking = info.rank()
    except UserInteractionError as error:
        return _Checked(None, error)
    if not ranking.available:
        return _Checked(ranking, None)
    try:
        provider = info.load()
        with UserInteraction() as ui:
            ui.register_provider(provider, name=info.name)
    except UserInteractionError as error:
        return _Checked(ranking, error)
    except TypeError as exc:
        return _Checked(
            ranking,
            UserInteractionError(
                f"provider {info.name!r} ({info.value}) {exc}", PROVIDER_LOAD_FAILED, cause=exc
            ),
        )
    return _Checked(ranking, None)


def _run_providers(args: argparse.Namespace) -> int:
    infos = UserInteraction().providers()
    checked = [_check(info) for info in infos] if args.check else None
    default = _default_name(infos, checked)
    checks = None if checked is None else [result.error for result in checked]
    if args.json:
        _print_providers_json(infos, default, checked)
    elif not infos:
        _print(
            f"No providers are installed (entry-point group {ENTRY_POINT_GROUP!r}); "
            "try: pip install user-interaction-stdio"
        )
    else:
        _print_providers_table(infos, default, checked)
    if default is not None and not any(info.name == default for info in infos):
        _say_error(f"{PROVIDER_ENV}={default} names no installed provider")
    failed = checks is not None and any(error is not None for error in checks)
    return EXIT_NO_PROVIDER if failed else EXIT_OK


def _print_providers_json(
    infos: Sequence[ProviderInfo],
    default: str | None,
    checked: Sequence[_Checked] | None,
) -> None:
    rows: list[dict[str, Any]] = []
    for index, info in enumerate(infos):
        row: dict[str, Any] = {
            "name": info.name,
            "distribution": info.distribution,
            "version": info.version,
            "value": info.value,
            "default": info.name == default,
        }
        if checked is not None:
            result = checked[index]
            ranking, error = result.ranking, result.error
            if ranking is not None:
                row["priority"] = ranking.priority
                row["available"] = ranking.available
                if ranking.reason:
                    row["unavailable_reason"] = ranking.reason
            row["loads"] = error is None
            if error is not None:
                row["error"] = error.to_dict()
        rows.append(row)
    document = {"group": ENTRY_POINT_GROUP, "default": default, "providers": rows}
    _print(json.dumps(document, indent=2, ensure_ascii=False))


def _print_providers_table(
    infos: Sequence[ProviderInfo],
    default: str | None,
    checked: Sequence[_Checked] | None,
) -> None:
    header = ["", "NAME", "DISTRIBUTION", "VERSION", "ENTRY POINT"]
    table = [
        ["*" if info.name == default else "", *map(_one_line, _described(info))] for info in infos
    ]
    checks = None if checked is None else [result.error for result in checked]
    if checked is not None:
        # the entry point is in the plain listing: without it the table fits 100 columns
        del header[4]
        for cells in table:
            del cells[4]
        header.extend(["PRIORITY", "AVAILABLE", "LOADS"])
        for cells, result in zip(table, checked):
            ranking = result.ranking
            cells.append("?" if ranking is None else f"{ranking.priority:g}")
            cells.append("?" if ranking is None else "yes" if ranking.available else "no")
            cells.append(
                "no"
                if result.error is not None
                else "yes"
                if ranking and ranking.available
                else "-"
            )
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
    for cells in [header, *table]:
        _print("  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip())
    if any(info.name == default for info in infos):
        chosen = os.environ.get(PROVIDER_ENV, "").strip()
        if chosen:
            source = f"{PROVIDER_ENV}={_one_line(chosen)}"
        elif checked is not None:
            source = "the available provider of highest priority"
        else:
            source = "the only installed provider"
        _print(f"\n* default: {source}")
    elif checked is None and len({info.name for info in infos}) > 1:
        _print("\n(the default is the available provider of highest priority: see --check)")
    unavailable = [
        (info, result.ranking)
        for info, result in zip(infos, checked or ())
        if result.ranking is not None and not result.ranking.available
    ]
    if unavailable:
        _print()
    for info, ranking in unavailable:
        reason = ranking.reason or "available() is false"
        _print(_wrapped(f"{_one_line(info.name)}: unavailable here: {_one_line(reason)}"))
    failures = [(info, error) for info, error in zip(infos, checks or ()) if error is not None]
    if failures:
        _print()
    for info, error in failures:
        _print(_wrapped(f"{_one_line(info.name)}: {error.code}: {_one_line(error.message)}"))


def _wrapped(text: str) -> str:
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


def _described(info: Any) -> tuple[str, str, str, str]:
    """An installed provider's or extension's name, distribution, version, entry point."""
    return (info.name, info.distribution, info.version, info.value)


# -- extensions -------------------------------------------------------------------------


def _run_extensions(args: argparse.Namespace) -> int:
    from . import _extensions as ext
    from ._decisions import DECISIONS_ENV

    infos = ext.installed_extensions()
    checks = [ext.check_extension(info) for info in infos] if args.check else None
    builtins = {
        variable: os.environ.get(variable, "").strip() or None
        for variable in (ext.AUDIT_ENV, ext.PREANSWERED_ENV, DECISIONS_ENV)
    }
    autoload = not os.environ.get(ext.DISABLE_AUTOLOAD_ENV)
    if args.json:
        rows: list[dict[str, Any]] = []
        for index, info in enumerate(infos):
            row: dict[str, Any] = {
                "name": info.name,
                "distribution": info.distribution,
                "version": info.version,
                "value": info.value,
                "loaded": ext.autoloaded(info),
            }
            if checks is not None:
                error = checks[index]
                row["loads"] = error is None
                if error is not None:
                    row["error"] = error.to_dict()
            rows.append(row)
        document = {
            "group": ext.EXTENSION_GROUP,
            "autoload": autoload,
            "extensions": rows,
            "builtins": builtins,
        }
        _print(json.dumps(document, indent=2, ensure_ascii=False))
    elif not infos:
        _print(f"No extensions are installed (entry-point group {ext.EXTENSION_GROUP!r}).")
    else:
        header = ["NAME", "DISTRIBUTION", "VERSION", "ENTRY POINT", "LOADED"]
        table = [
            [*map(_one_line, _described(info)), "yes" if ext.autoloaded(info) else "no"]
            for info in infos
        ]
        if checks is not None:
            header.append("LOADS")
            for cells, error in zip(table, checks):
                cells.append("yes" if error is None else "no")
        widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
        for cells in [header, *table]:
            _print("  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip())
        if not autoload:
            _print(
                f"\nautoload is off ({ext.DISABLE_AUTOLOAD_ENV}); loaded: those named in "
                f"{ext.EXTENSIONS_ENV}"
            )
        failures = [(info, error) for info, error in zip(infos, checks or ()) if error]
        if failures:
            _print()
        for info, error in failures:
            _print(f"{_one_line(info.name)}: {error.code}: {_one_line(error.message)}")
    if not args.json:
        for variable, path in builtins.items():
            if path is not None:
                _print(f"{variable}={_one_line(path)}: built in, loaded into every context")
    failed = checks is not None and any(error is not None for error in checks)
    return EXIT_PROVIDER_FAILED if failed else EXIT_OK


# -- ask --------------------------------------------------------------------------------


def _read_request(source: str) -> AskUserQuestionRequest:
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
        from .tool import parse_arguments

        return parse_arguments(data)
    return AskUserQuestionRequest.from_dict(data)


def _in_tool_form(data: object) -> bool:
    """Whether a question of ``data`` uses the tool's own key, ``multi_select``."""
    questions = data.get("questions") if isinstance(data, dict) else None
    return isinstance(questions, list) and any(
        isinstance(question, dict) and "multi_select" in question for question in questions
    )


def _option(text: str) -> AskUserQuestionOption:
    label, equals, description = text.partition("=")
    return AskUserQuestionOption(label, description if equals else None)


def _request_from(args: argparse.Namespace) -> AskUserQuestionRequest:
    parser: argparse.ArgumentParser = args.parser
    if args.request is not None:
        extra = [
            flag
            for flag, value in (
                ("QUESTION", args.question),
                ("--option", args.option),
                ("--multi", args.multi),
                ("--header", args.header),
                ("--detail", args.detail),
                ("--id", args.id),
            )
            if value
        ]
        if extra:
            parser.error(f"--request cannot be combined with {', '.join(extra)}")
        return _read_request(args.request)
    if args.question is None:
        parser.error("give a QUESTION, or --request FILE")
    item = AskUserQuestionItem(
        args.id if args.id is not None else _DEFAULT_ID,
        args.question,
        header=args.header,
        options=[_option(text) for text in args.option],
        multi_select=args.multi,
        detail=args.detail,
    )
    return AskUserQuestionRequest([item])


@contextmanager
def _prompts_off_stdout() -> Iterator[TextIO]:
    """Keep stdout for the answer: when it is not a terminal, point ``sys.stdout`` at
    stderr while the provider runs. Yields the real stdout."""
    stdout = sys.stdout
    if stdout is None or sys.stderr is None or _isatty(stdout):
        yield stdout
        return
    stdout.flush()
    sys.stdout = sys.stderr
    try:
        yield stdout
    finally:
        sys.stdout = stdout


def _quiet_asyncio() -> None:
    """After Ctrl-C, the abandoned ask may end with an error nobody retrieves any more;
    keep asyncio from logging it as the process exits."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def _answer_lines(request: AskUserQuestionRequest, answer: AskUserQuestionAnswer) -> list[str]:
    """The chosen labels or the custom text of each question, in the request's order."""
    lines: list[str] = []
    for question in request.questions:
        item = answer.get(question.id)
        if item is None:
            continue
        if item.custom is not None:
            lines.append(item.custom)
        else:
            lines.extend(item.selected)
    return lines


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


def _run_ask(args: argparse.Namespace) -> int:
    request = _request_from(args)
    if sys.stdout is None:  # closed (>&-): the answer would be lost, so ask nobody
        raise _Failure(
            "cannot write the answer: stdout is closed (nothing was asked)", EXIT_OUTPUT_FAILED
        )
    with _prompts_off_stdout() as stdout, UserInteraction() as ui:
        info = find_provider(args.provider)
        ui.use(f"{info.distribution}:{info.name}", **dict(args.provider_option))
        ask = _asker(_trace_mode(args), info.name, args.timeout)
        try:
            answer = ask(ui, request)
        except KeyboardInterrupt:
            _quiet_asyncio()
            raise
    if args.json:
        text = _compact(answer.to_dict()) + "\n"
    else:
        text = "".join(line + "\n" for line in _answer_lines(request, answer))
    try:
        _write_out(stdout, text, what="the answer", flush=True)
    except BrokenPipeError:  # `ask | head -c0`: the human answered, and nobody reads it
        raise _Failure(
            "cannot write the answer to stdout: the pipe is closed (the answer is lost)",
            EXIT_OUTPUT_FAILED,
        ) from None
    return EXIT_OK


# -- dev and new-provider (in modules of their own) -------------------------------------


def _run_dev(args: argparse.Namespace) -> int:
    from ._cli_dev import DevLoop, sample_request

    request = sample_request() if args.request is None else _read_request(args.request)
    stdout = sys.stdout
    if stdout is None:  # closed (>&-): dev's report is all it gives
        raise _Failure("cannot write dev's report: stdout is closed", EXIT_OUTPUT_FAILED)
    loop = DevLoop(
        args.provider,
        request,
        watch=args.watch,
        watcher=args.watcher,
        poll_interval=args.poll_interval,
        rounds=args.rounds,
        on_change=args.on_change,
        show_traceback=args.traceback,
        make_asker=lambda name: _asker(_trace_mode(args), name, args.timeout),
        write=lambda text: _write_out(stdout, text, what="dev's report", flush=True),
    )
    try:
        return loop.run()
    except BrokenPipeError:  # `dev | head`: main() ends quietly
        raise
    except (OSError, ValueError) as exc:  # a --watch path that does not exist, ...
        raise _Failure(str(exc)) from exc


def _cli_decisions() -> Any:
    from . import _cli_decisions

    return _cli_decisions


def _run_decisions(args: argparse.Namespace) -> int:
    command = _cli_decisions()
    try:
        status, text = command.run(args)
    except command.ERRORS as exc:
        raise _Failure(f"decisions: {exc}") from exc
    if status:
        raise _Failure(text, status)
    _print(text)
    return EXIT_OK


def _run_new_provider(args: argparse.Namespace) -> int:
    from ._cli_scaffold import ScaffoldError, create, describe_next_steps

    parser: argparse.ArgumentParser = args.parser
    try:
        written: tuple[Path, list[Path]] = create(args.name, args.directory)
    except ValueError as exc:  # a name that cannot be a provider's
        parser.error(str(exc))
    except ScaffoldError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot write the distribution: {exc}") from exc
    _print(describe_next_steps(args.name, *written))
    return EXIT_OK


# -- commands from plugins --------------------------------------------------------------


def _add_plugin_commands(commands: Any, argv: Sequence[str] | None) -> None:
    """Add every installed plugin command, and the missing ones of our own distributions
    (which say how to install them); only the command ``argv`` runs is imported."""
    wanted = next((arg for arg in argv or () if not arg.startswith("-")), None)
    core = set(commands.choices)
    for name, infos in sorted(installed_commands().items()):
        if name in core:  # the core's own commands cannot be replaced
            continue
        own = OWN_COMMANDS.get(name)
        summary = own.summary if own is not None else f"from {infos[0].distribution}"
        if name != wanted:
            commands.add_parser(name, help=summary, add_help=False)
            continue
        if len(infos) > 1:
            offered = " and ".join(f"{info.distribution} {info.version}" for info in infos)
            raise CommandLoadError(f"command {name!r} is offered by more than one: {offered}")
        command = infos[0].load()
        parser = commands.add_parser(
            name, help=summary, description=own.summary if own is not None else None
        )
        command.add_arguments(parser)
        parser.set_defaults(run=command.run)
    for name, own in sorted(OWN_COMMANDS.items()):
        if name not in commands.choices:
            # Not installed: take any arguments (an unused prefix character keeps argparse
            # from reading options), and say how to install it.
            missing = commands.add_parser(
                name,
                help=f"{own.summary} (needs {own.distribution})",
                add_help=False,
                prefix_chars="\0",
            )
            missing.add_argument("arguments", nargs=argparse.REMAINDER, metavar="OPTIONS")
            missing.set_defaults(run=_missing(name, own))


def _missing(name: str, own: OwnCommand) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if {"-h", "--help"} & set(args.arguments):
            print(f"usage: {PROG} {name} [OPTIONS]\n\n{own.missing(name)}")
            return EXIT_OK
        raise _Failure(own.missing(name))

    return run
