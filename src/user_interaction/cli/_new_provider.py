"""``user-interaction new-provider``: write a provider distribution to start from.

The templates are package data in ``_scaffold/``; ``{{placeholder}}`` marks what is
filled in. The result is pip-installable (hatchling) and registers its provider under
the ``user_interaction.providers`` entry-point group; its own tests check that it is
discovered and answers, and run the provider conformance suite (``ProviderConformance``)
against it: its reading is interruptible, so abort, timeout and disposal end an ask at
once.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

from user_interaction import __version__
from user_interaction._discovery import ENTRY_POINT_GROUP

from ._common import EXIT_OK, FORMATTER, Failure, say

if TYPE_CHECKING:
    from ._common import Commands

_NAME: Final = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")


def add_parser(commands: Commands) -> None:
    """Add ``new-provider`` to ``commands``."""
    new = commands.add_parser(
        "new-provider",
        help="create a provider distribution to start from",
        description="Write a pip-installable provider distribution: pyproject.toml "
        "(hatchling, the entry point), src/user_interaction_NAME/__init__.py (a working "
        "line-based provider to replace), tests/test_NAME.py and README.md.",
        formatter_class=FORMATTER,
    )
    new.add_argument("name", metavar="NAME", help="the provider's name, e.g. 'web' or 'my-ui'")
    new.add_argument(
        "--directory",
        "-d",
        metavar="DIR",
        help="where to write it (default: ./user-interaction-NAME); must be empty or new",
    )
    new.set_defaults(run=run, parser=new)


def run(args: argparse.Namespace) -> int:
    """Write the distribution and say what to do next."""
    parser: argparse.ArgumentParser = args.parser
    try:
        root, written = create(args.name, args.directory)
    except ValueError as exc:  # a name that cannot be a provider's
        parser.error(str(exc))
    except ScaffoldError as exc:
        raise Failure(str(exc)) from exc
    except OSError as exc:
        raise Failure(f"cannot write the distribution: {exc}") from exc
    say(describe_next_steps(args.name, root, written))
    return EXIT_OK


class ScaffoldError(Exception):
    """The distribution cannot be written where asked."""


def names_for(name: str) -> dict[str, str]:
    """The placeholders' values for provider ``name``; ``ValueError`` if it cannot be one."""
    if not _NAME.match(name):
        raise ValueError(
            f"invalid provider name {name!r}: use lowercase letters and digits, "
            "words separated by '-' or '_', starting with a letter (e.g. 'web', 'my-ui')"
        )
    words = re.split(r"[-_]", name)
    suffix = "_".join(words)
    return {
        "name": name,
        "distribution": "user-interaction-" + "-".join(words),
        "module": "user_interaction_" + suffix,
        "module_suffix": suffix,
        "class": "".join(word.capitalize() for word in words) + "Provider",
        "core_version": __version__,
        "group": ENTRY_POINT_GROUP,
    }


def _render(template: str, values: dict[str, str]) -> str:
    from importlib.resources import files  # here, not at the start of every command

    text = (files("user_interaction") / "_scaffold" / template).read_text(encoding="utf-8")
    return re.sub(r"\{\{(\w+)\}\}", lambda match: values[match.group(1)], text)


def create(name: str, directory: str | None = None) -> tuple[Path, list[Path]]:
    """Write the distribution for provider ``name`` into ``directory`` (default:
    ``./user-interaction-NAME``); returns the directory and the files written."""
    values = names_for(name)
    root = Path(directory if directory is not None else values["distribution"])
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ScaffoldError(f"{str(root)!r} already exists and is not an empty directory")
    plan = {
        Path("pyproject.toml"): "pyproject.toml.tmpl",
        Path("README.md"): "README.md.tmpl",
        Path("src", values["module"], "__init__.py"): "provider.py.tmpl",
        Path("src", values["module"], "py.typed"): None,
        Path("tests", f"test_{values['module_suffix']}.py"): "test_provider.py.tmpl",
        Path("tests", f"test_{values['module_suffix']}_conformance.py"): "test_conformance.py.tmpl",
    }
    written: list[Path] = []
    for relative, template in plan.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("" if template is None else _render(template, values), encoding="utf-8")
        written.append(relative)
    return root, written


def describe_next_steps(name: str, root: Path, written: list[Path]) -> str:
    """What ``new-provider`` prints: the files written and what to do next."""
    values = names_for(name)
    lines = [f"Created {values['distribution']} in {root}:"]
    lines += [f"  {path.as_posix()}" for path in written]
    lines += [
        "",
        "Next:",
        f"  cd {root}",
        "  pip install -e '.[test]'",
        "  pytest",
        f"  user-interaction dev {name}",
    ]
    return "\n".join(lines)
