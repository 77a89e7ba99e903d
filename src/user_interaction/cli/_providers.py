"""``user-interaction providers``: list the installed providers, and which is the default."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any, Sequence

from user_interaction._discovery import (
    ENTRY_POINT_GROUP,
    PROVIDER_ENV,
    ProviderInfo,
    Ranking,
    best_provider,
)
from user_interaction._errors import PROVIDER_LOAD_FAILED, UserInteractionError
from user_interaction._manager import UserInteraction

from ._common import (
    EXIT_NO_PROVIDER,
    EXIT_OK,
    FORMATTER,
    one_line,
    say,
    say_error,
    table,
    wrapped,
)

if TYPE_CHECKING:
    from ._common import Commands


def add_parser(commands: Commands) -> None:
    """Add ``providers`` to ``commands``."""
    providers = commands.add_parser(
        "providers",
        help="list the installed providers",
        description="List the installed providers without importing them; the default "
        f"one (from {PROVIDER_ENV}, or the only one installed; with --check, the available "
        "one of highest priority) is marked with '*'.",
        epilog="exit status: 0, or 5 when --check finds a provider that fails to load",
        formatter_class=FORMATTER,
    )
    providers.add_argument("--json", action="store_true", help="print JSON")
    providers.add_argument(
        "--check",
        action="store_true",
        help="also import each provider: show its priority and availability, build the "
        "available ones and report failures",
    )
    providers.set_defaults(run=run)


def described(info: Any) -> tuple[str, str, str, str]:
    """An installed provider's or extension's name, distribution, version, entry point."""
    return (info.name, info.distribution, info.version, info.value)


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


def run(args: argparse.Namespace) -> int:
    """List the providers; with ``--check``, import, rank and build each."""
    infos = UserInteraction().providers()
    checked = [_check(info) for info in infos] if args.check else None
    default = _default_name(infos, checked)
    checks = None if checked is None else [result.error for result in checked]
    if args.json:
        _print_json(infos, default, checked)
    elif not infos:
        say(
            f"No providers are installed (entry-point group {ENTRY_POINT_GROUP!r}); "
            "try: pip install user-interaction-stdio"
        )
    else:
        _print_table(infos, default, checked)
    if default is not None and not any(info.name == default for info in infos):
        say_error(f"{PROVIDER_ENV}={default} names no installed provider")
    failed = checks is not None and any(error is not None for error in checks)
    return EXIT_NO_PROVIDER if failed else EXIT_OK


def _print_json(
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
    say(json.dumps(document, indent=2, ensure_ascii=False))


def _print_table(
    infos: Sequence[ProviderInfo],
    default: str | None,
    checked: Sequence[_Checked] | None,
) -> None:
    header = ["", "NAME", "DISTRIBUTION", "VERSION", "ENTRY POINT"]
    rows = [
        ["*" if info.name == default else "", *map(one_line, described(info))] for info in infos
    ]
    checks = None if checked is None else [result.error for result in checked]
    if checked is not None:
        # the entry point is in the plain listing: without it the table fits 100 columns
        del header[4]
        for cells in rows:
            del cells[4]
        header.extend(["PRIORITY", "AVAILABLE", "LOADS"])
        for cells, result in zip(rows, checked):
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
    table(header, rows)
    if any(info.name == default for info in infos):
        chosen = os.environ.get(PROVIDER_ENV, "").strip()
        if chosen:
            source = f"{PROVIDER_ENV}={one_line(chosen)}"
        elif checked is not None:
            source = "the available provider of highest priority"
        else:
            source = "the only installed provider"
        say(f"\n* default: {source}")
    elif checked is None and len({info.name for info in infos}) > 1:
        say("\n(the default is the available provider of highest priority: see --check)")
    unavailable = [
        (info, result.ranking)
        for info, result in zip(infos, checked or ())
        if result.ranking is not None and not result.ranking.available
    ]
    if unavailable:
        say()
    for info, ranking in unavailable:
        reason = ranking.reason or "available() is false"
        say(wrapped(f"{one_line(info.name)}: unavailable here: {one_line(reason)}"))
    failures = [(info, error) for info, error in zip(infos, checks or ()) if error is not None]
    if failures:
        say()
    for info, error in failures:
        say(wrapped(f"{one_line(info.name)}: {error.code}: {one_line(error.message)}"))
