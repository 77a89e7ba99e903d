"""``user-interaction extensions``: list the installed extensions and the built-in ones
switched on by the environment."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from ._common import EXIT_OK, EXIT_PROVIDER_FAILED, FORMATTER, one_line, say, table
from ._providers import described

if TYPE_CHECKING:
    from ._common import Commands


def add_parser(commands: Commands) -> None:
    """Add ``extensions`` to ``commands``."""
    extensions = commands.add_parser(
        "extensions",
        help="list the installed extensions",
        description="List the installed extensions (entry-point group "
        "'user_interaction.extensions') without importing them, and whether every context "
        "loads them (autoload, or USER_INTERACTION_EXTENSIONS when "
        "USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD is set).",
        epilog="exit status: 0, or 7 when --check finds an extension that fails to load",
        formatter_class=FORMATTER,
    )
    extensions.add_argument("--json", action="store_true", help="print JSON")
    extensions.add_argument(
        "--check", action="store_true", help="also import each extension and report failures"
    )
    extensions.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List the extensions; with ``--check``, import each."""
    from user_interaction import _extensions as ext
    from user_interaction._decisions import DECISIONS_ENV

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
        say(json.dumps(document, indent=2, ensure_ascii=False))
    elif not infos:
        say(f"No extensions are installed (entry-point group {ext.EXTENSION_GROUP!r}).")
    else:
        header = ["NAME", "DISTRIBUTION", "VERSION", "ENTRY POINT", "LOADED"]
        cells = [
            [*map(one_line, described(info)), "yes" if ext.autoloaded(info) else "no"]
            for info in infos
        ]
        if checks is not None:
            header.append("LOADS")
            for row_cells, error in zip(cells, checks):
                row_cells.append("yes" if error is None else "no")
        table(header, cells)
        if not autoload:
            say(
                f"\nautoload is off ({ext.DISABLE_AUTOLOAD_ENV}); loaded: those named in "
                f"{ext.EXTENSIONS_ENV}"
            )
        failures = [(info, error) for info, error in zip(infos, checks or ()) if error]
        if failures:
            say()
        for info, error in failures:
            say(f"{one_line(info.name)}: {error.code}: {one_line(error.message)}")
    if not args.json:
        for variable, path in builtins.items():
            if path is not None:
                say(f"{variable}={one_line(path)}: built in, loaded into every context")
    failed = checks is not None and any(error is not None for error in checks)
    return EXIT_PROVIDER_FAILED if failed else EXIT_OK
