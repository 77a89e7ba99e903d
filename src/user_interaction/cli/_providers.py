"""``user-interaction providers``: list the installed providers, and which is the default."""

from __future__ import annotations

import argparse
import json
import logging
import os
from typing import TYPE_CHECKING, Any, Sequence

from user_interaction._discovery import (
    ENTRY_POINT_GROUP,
    PROVIDER_ENV,
    ProviderInfo,
    Ranking,
    find_provider,
)
from user_interaction._errors import PROVIDER_LOAD_FAILED, PROVIDER_NOT_FOUND, UserInteractionError
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
        description="List the installed providers and mark with '*' the default one, "
        "the one ask and use() take when none is named: the one "
        f"{PROVIDER_ENV} names, else the available one of highest priority (finding it "
        "imports the providers to ask whether they are available here).",
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


def _choose_default() -> ProviderInfo | UserInteractionError:
    """The provider ``ask`` and ``use()`` take when none is named, by the same rules
    (:func:`find_provider`: the environment's choice, else the available provider of
    highest priority, which imports the providers to rank them), or why there is none."""
    logger = logging.getLogger("user_interaction")
    was = logger.disabled
    logger.disabled = True  # the ranking logs each provider that fails: --check says it
    try:
        return find_provider()
    except UserInteractionError as error:
        return error
    finally:
        logger.disabled = was


def _is(info: ProviderInfo, default: ProviderInfo | UserInteractionError) -> bool:
    return (
        isinstance(default, ProviderInfo)
        and info.name == default.name
        and info.distribution == default.distribution
    )


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
    default = _choose_default()
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
    chosen = os.environ.get(PROVIDER_ENV, "").strip()
    if chosen and isinstance(default, UserInteractionError) and default.code == PROVIDER_NOT_FOUND:
        say_error(f"{PROVIDER_ENV}={chosen} names no installed provider")
    failed = checks is not None and any(error is not None for error in checks)
    return EXIT_NO_PROVIDER if failed else EXIT_OK


def _print_json(
    infos: Sequence[ProviderInfo],
    default: ProviderInfo | UserInteractionError,
    checked: Sequence[_Checked] | None,
) -> None:
    rows: list[dict[str, Any]] = []
    for index, info in enumerate(infos):
        row: dict[str, Any] = {
            "name": info.name,
            "distribution": info.distribution,
            "version": info.version,
            "value": info.value,
            "default": _is(info, default),
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
    document: dict[str, Any] = {"group": ENTRY_POINT_GROUP}
    if isinstance(default, ProviderInfo):
        document["default"] = default.name
    else:
        document["default"] = None
        document["no_default"] = default.to_dict()
    document["providers"] = rows
    say(json.dumps(document, indent=2, ensure_ascii=False))


def _print_table(
    infos: Sequence[ProviderInfo],
    default: ProviderInfo | UserInteractionError,
    checked: Sequence[_Checked] | None,
) -> None:
    header = ["", "NAME", "DISTRIBUTION", "VERSION", "ENTRY POINT"]
    rows = [["*" if _is(info, default) else "", *map(one_line, described(info))] for info in infos]
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
    chosen = os.environ.get(PROVIDER_ENV, "").strip()
    if isinstance(default, ProviderInfo):
        name = one_line(default.name)
        if chosen:
            source = f"{PROVIDER_ENV}={one_line(chosen)}"
        elif len({info.name for info in infos}) == 1:
            source = f"the only installed provider ({name})"
        else:
            source = f"the available provider of highest priority ({name})"
        say(f"\n* default: {source}")
    elif not chosen:  # a name the environment gives that is not installed: said on stderr
        say()
        say(wrapped(f"no default: {one_line(default.message)}"))
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
