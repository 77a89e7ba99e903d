"""``user-interaction decisions``: list and forget remembered approvals."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from user_interaction._decisions import DECISIONS_ENV, Decision, DecisionStore
from user_interaction._errors import UserInteractionError
from user_interaction.terminal import visible

from ._common import EXIT_OK, FORMATTER, Failure, say

if TYPE_CHECKING:
    from ._common import Commands


@runtime_checkable
class _Listing(Protocol):
    """What the commands manage: a decisions file, or a provider's store that lists."""

    def all(self) -> list[Decision]: ...

    def forget(self, name: str | None = None) -> int: ...


def add_parser(commands: Commands) -> None:
    """Add ``decisions`` (with its ``list`` and ``forget`` actions) to ``commands``."""
    parser = commands.add_parser(
        "decisions",
        help="list or forget remembered approvals",
        description="List or forget the approvals remembered as 'Always allow' or 'Always "
        "deny' (by RememberedDecisions, or every context when USER_INTERACTION_DECISIONS "
        "is set).",
        epilog="exit status: 0; 1 when the file cannot be read or NAME is not remembered",
        formatter_class=FORMATTER,
    )
    where = argparse.ArgumentParser(add_help=False)
    store = where.add_mutually_exclusive_group()
    store.add_argument(
        "--path",
        type=Path,
        help=f"the decisions file (default: {DECISIONS_ENV}, else decisions.sqlite3 in the "
        "state directory)",
    )
    store.add_argument(
        "--inbox",
        action="store_true",
        help="the decisions the running inbox keeps for all its agents",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[where], help="list the remembered decisions")
    listing.add_argument("--json", action="store_true", help="print JSON")
    forget = actions.add_parser(
        "forget", parents=[where], help="forget a remembered decision, or all"
    )
    which = forget.add_mutually_exclusive_group(required=True)
    which.add_argument("name", nargs="?", help="the name an approval remembered")
    which.add_argument("--all", action="store_true", help="forget every decision")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List or forget; a file (or an inbox) that cannot be used is a :class:`Failure`."""
    import sqlite3  # here, not at the start of every command

    try:
        status, text = _outcome(args)
    except (OSError, sqlite3.Error, RuntimeError, UserInteractionError) as exc:
        raise Failure(f"decisions: {exc}") from exc
    if status:
        raise Failure(text, status)
    say(text)
    return EXIT_OK


def _outcome(args: argparse.Namespace) -> tuple[int, str]:
    """The exit status and what to print (an error is raised as ``OSError`` or
    ``sqlite3.Error``, or ``RuntimeError`` for a file of a newer schema)."""
    if args.inbox:
        return _with_the_inbox(args)
    store = DecisionStore(args.path)
    exists = store.path.exists()
    return _run(args, store if exists else _Nothing(), str(store.path))


def _with_the_inbox(args: argparse.Namespace) -> tuple[int, str]:
    """``--inbox``: the inbox provider's own decisions (the running inbox's)."""
    from user_interaction._decisions import provider_decisions
    from user_interaction._discovery import find_provider

    provider = find_provider("inbox").load()
    try:
        store: object = provider_decisions(provider)
        if not isinstance(store, _Listing):
            raise RuntimeError("the inbox provider keeps no decisions it can list")
        return _run(args, store, "the inbox")
    finally:
        dispose = getattr(provider, "dispose", None)
        if callable(dispose):
            dispose()


class _Nothing:
    """A decisions file that does not exist: nothing is remembered (and none is made)."""

    def all(self) -> list[Decision]:
        return []

    def forget(self, name: str | None = None) -> int:
        return 0


def _run(args: argparse.Namespace, store: _Listing, where: str) -> tuple[int, str]:
    if args.action == "list":
        decisions = store.all()
        if args.json:
            document = {"path": where, "decisions": [d.to_dict() for d in decisions]}
            return 0, json.dumps(document, indent=2, ensure_ascii=False)
        if not decisions:
            return 0, f"No decisions are remembered in {where}."
        width = max(len(visible(d.name)) for d in decisions)
        lines = [f"{'NAME':<{width}}  DECISION      DECIDED (UTC)"]
        for decision in decisions:
            when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(decision.decided))
            shown = "always allow" if decision.allowed else "always deny"
            lines.append(f"{visible(decision.name):<{width}}  {shown:<12}  {when}")
        return 0, "\n".join(lines)
    forgotten = store.forget(None if args.all else args.name)
    if args.all:
        return 0, f"Forgot {forgotten} decision{'s' if forgotten != 1 else ''}."
    if not forgotten:
        return 1, f"No decision is remembered for {visible(args.name)!r} in {where}."
    return 0, f"Forgot the decision for {visible(args.name)!r}."
