"""``user-interaction new-provider``: write a provider distribution to start from.

The templates are package data in ``_scaffold/``; ``{{placeholder}}`` marks what is
filled in. The result is pip-installable (hatchling) and registers its provider under
the ``user_interaction.providers`` entry-point group; its own tests check that it is
discovered and answers, and run the provider conformance suite (``ProviderConformance``)
against it: its reading is interruptible, so abort, timeout and disposal end an ask at
once.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from typing import Final

from . import __version__
from ._discovery import ENTRY_POINT_GROUP

__all__ = ["ScaffoldError", "create", "describe_next_steps", "names_for"]

_NAME: Final = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")


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
    text = (files(__package__) / "_scaffold" / template).read_text(encoding="utf-8")
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
