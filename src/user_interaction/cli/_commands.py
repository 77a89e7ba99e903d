"""Subcommands from plugins: the ``user_interaction.commands`` entry-point group.

A distribution adds ``user-interaction NAME`` with an entry point ``NAME = "module:obj"``
whose object has ``add_arguments(parser)`` and ``run(args) -> int`` (the exit status): the
object itself, a class or zero-argument factory building it, or a module with those two
functions. Listing the commands (``user-interaction --help``) imports none of them; only
the command being run is imported. The core knows the names of the commands its own
distributions add, so a missing one says how to install it.
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Final, Protocol, Sequence

import attrs

from user_interaction._discovery import EntryPointInfo, scan

from ._common import EXIT_OK, PROG, Failure

if TYPE_CHECKING:
    from ._common import Commands


#: The entry-point group of subcommands.
COMMAND_GROUP: Final = "user_interaction.commands"


class Command(Protocol):
    """What a plugin's subcommand provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


@attrs.frozen
class OwnCommand:
    """A command one of this project's distributions adds: how to get it when missing."""

    summary: str
    distribution: str
    folder: str
    python: str

    def missing(self, name: str) -> str:
        return (
            f"{name} needs the {self.distribution} distribution (Python {self.python}): "
            f"pip install {self.distribution} (from a checkout: pip install -e {self.folder})"
        )


#: The commands this project's own distributions add, known without importing anything.
OWN_COMMANDS: Final = {
    "inbox": OwnCommand(
        "asks that outlive their process: serve, open, list, answer",
        "user-interaction-inbox",
        "plugins/inbox",
        "3.10+",
    ),
    "mcp-server": OwnCommand(
        "serve the ask_user_question tool over MCP",
        "user-interaction-mcp",
        "plugins/mcp",
        "3.10+",
    ),
}


class CommandLoadError(Exception):
    """A plugin's command failed to import or has no ``add_arguments``/``run``."""


@attrs.frozen
class CommandInfo(EntryPointInfo):
    """An installed subcommand, as listed without importing it."""

    def load(self) -> Command:
        """Import the command and return the object with ``add_arguments`` and ``run``;
        :class:`CommandLoadError` naming the distribution when that fails."""
        try:
            target = self._entry_point.load()
            if isinstance(target, type) or (
                not isinstance(target, ModuleType) and not _is_command(target) and callable(target)
            ):
                target = target()  # a class or factory building the command
        except (Exception, SystemExit) as exc:
            raise self._failed(f"failed to load: {type(exc).__name__}: {exc}") from exc
        if not _is_command(target):
            raise self._failed("has no add_arguments(parser) and run(args)")
        return target  # type: ignore[no-any-return]

    def _failed(self, problem: str) -> CommandLoadError:
        return CommandLoadError(
            f"command {self.name!r} ({self.value}, from {self.distribution} {self.version}) "
            f"{problem}"
        )


def _is_command(target: object) -> bool:
    return callable(getattr(target, "add_arguments", None)) and callable(
        getattr(target, "run", None)
    )


def installed_commands() -> dict[str, list[CommandInfo]]:
    """Every installed command by name (two distributions may offer one name), read as
    the providers are: without importing anything, past malformed entry points."""
    found: dict[str, list[CommandInfo]] = {}
    for info in scan(COMMAND_GROUP, CommandInfo):
        found.setdefault(info.name, []).append(info)
    return found


def add_plugin_commands(commands: Commands, argv: Sequence[str] | None) -> None:
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
        raise Failure(own.missing(name))

    return run
