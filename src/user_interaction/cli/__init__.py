"""The command line: ``user-interaction`` (also ``python -m user_interaction``).

======================  ==============================================================
``providers``           list the installed providers (``--check`` imports each one)
``extensions``          list the installed extensions (``--check`` imports each one)
``decisions``           list or forget the remembered approvals
``ask QUESTION``        ask a human through a provider; print the answer
``dev PROVIDER``        ask again and again, hot-reloading the provider on every save
``new-provider NAME``   write a pip-installable provider distribution to start from
======================  ==============================================================

One module per subcommand, each adding its own parser. Distributions add commands of
their own through the ``user_interaction.commands`` entry-point group: ``mcp-server``
(user-interaction-mcp) and ``inbox`` (user-interaction-inbox) come this way; the core
imports no plugin.

Every :class:`~user_interaction.UserInteractionError` ends the command with one line on
stderr (``user-interaction: CODE: message``) and an exit status per failure class, see
:data:`EXIT_STATUS`. ``USER_INTERACTION_TRACE=1`` (or ``--trace``) logs each ask through
:mod:`logging`; the answers' text only with ``USER_INTERACTION_TRACE=answers``.

This package is imported only when the command line runs, never by
``import user_interaction``.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import Iterator, Sequence

from user_interaction import __version__
from user_interaction._discovery import PROVIDER_ENV
from user_interaction._errors import UserInteractionError

from . import _ask, _decisions, _dev, _extensions, _new_provider, _providers
from ._commands import CommandLoadError, add_plugin_commands
from ._common import (
    EXIT_ABORTED,
    EXIT_DISMISSED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_INVALID_REQUEST,
    EXIT_NO_PROVIDER,
    EXIT_OK,
    EXIT_OUTPUT_FAILED,
    EXIT_PLUGIN_ERROR,
    EXIT_PROVIDER_FAILED,
    EXIT_STATUS,
    EXIT_USAGE,
    FORMATTER,
    PROG,
    STATUS_EPILOG,
    TRACE_ENV,
    TRACE_LOGGER,
    Failure,
    add_provider_option,
    drop_stdout,
    exit_status,
    forget_caught_interrupt,
    say_error,
    seconds,
    tracing_options,
    write_out,
)

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
    "add_provider_option",
    "build_parser",
    "exit_status",
    "forget_caught_interrupt",
    "main",
    "seconds",
]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``user-interaction`` argument parser, with one sub-parser per command.

    Commands from plugins (``user_interaction.commands``) are listed without importing
    them; the one ``argv`` runs, if any, is imported and adds its own arguments.
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Ask a human from a shell script, list providers, develop a provider.",
        epilog=STATUS_EPILOG
        + f"\nenvironment:\n  {PROVIDER_ENV}  the provider used when none is named\n"
        f"  {TRACE_ENV}     1: log each ask to stderr; answers: with the answers",
        formatter_class=FORMATTER,
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
    tracing = tracing_options()
    _providers.add_parser(commands)
    _extensions.add_parser(commands)
    _decisions.add_parser(commands)
    _ask.add_parser(commands, tracing)
    _dev.add_parser(commands, tracing)
    _new_provider.add_parser(commands)
    add_plugin_commands(commands, argv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the status."""
    if argv is None:
        argv = sys.argv[1:]
    try:
        parser = build_parser(argv)
    except CommandLoadError as exc:
        say_error(str(exc))
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
            write_out(sys.stdout, "", flush=True)
    except UserInteractionError as error:
        say_error(f"{error.code}: {error.message}")
        return exit_status(error)
    except Failure as failure:
        say_error(str(failure))
        if failure.status == EXIT_OUTPUT_FAILED:
            drop_stdout()
        return failure.status
    except KeyboardInterrupt:
        forget_caught_interrupt()  # or CPython may still end the process by SIGINT
        say_error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `user-interaction providers | head -1`
        drop_stdout()
        return EXIT_ERROR
    return status
