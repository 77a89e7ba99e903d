"""``user-interaction decisions``: list and forget remembered approvals."""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

from ._decisions import DECISIONS_ENV, DecisionStore
from .terminal import visible

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``decisions list`` and ``decisions forget`` subcommands."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--path",
        type=Path,
        help=f"the decisions file (default: {DECISIONS_ENV}, else decisions.sqlite3 in the "
        "state directory)",
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


def run(args: argparse.Namespace) -> tuple[int, str]:
    """The exit status and what to print (an error is raised as ``OSError`` or
    ``sqlite3.Error``, or ``RuntimeError`` for a file of a newer schema)."""
    store = DecisionStore(args.path)
    if args.action == "list":
        decisions = store.all() if store.path.exists() else []
        if args.json:
            document = {"path": str(store.path), "decisions": [d.to_dict() for d in decisions]}
            return 0, json.dumps(document, indent=2, ensure_ascii=False)
        if not decisions:
            return 0, f"No decisions are remembered in {store.path}."
        width = max(len(visible(d.name)) for d in decisions)
        lines = [f"{'NAME':<{width}}  DECISION      DECIDED (UTC)"]
        for decision in decisions:
            when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(decision.decided))
            shown = "always allow" if decision.allowed else "always deny"
            lines.append(f"{visible(decision.name):<{width}}  {shown:<12}  {when}")
        return 0, "\n".join(lines)
    exists = store.path.exists()
    forgotten = store.forget(None if args.all else args.name) if exists else 0
    if args.all:
        return 0, f"Forgot {forgotten} decision{'s' if forgotten != 1 else ''}."
    if not forgotten:
        return 1, f"No decision is remembered for {visible(args.name)!r} in {store.path}."
    return 0, f"Forgot the decision for {visible(args.name)!r}."


#: What ``run`` may raise for a file it cannot use.
ERRORS = (OSError, sqlite3.Error, RuntimeError)
