"""The repository's own settings: one version, one ruff pin, a tox matrix that installs
the providers as users do and exercises the ``dev`` extra."""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path

import user_interaction

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

if sys.version_info >= (3, 10):
    import importlib.metadata as importlib_metadata
else:
    import importlib_metadata

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def tox() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return parser


def test_the_version_is_written_once_in_the_package() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/user_interaction/__init__.py"
    # the installed metadata was read from there
    assert importlib_metadata.version("user-interaction") == user_interaction.__version__


def test_ruff_is_pinned_once_and_pre_commit_agrees() -> None:
    (pin,) = [
        requirement
        for requirement in PYPROJECT["project"]["optional-dependencies"]["lint"]
        if requirement.startswith("ruff")
    ]
    version = re.fullmatch(r"ruff==([\w.]+)", pin)
    assert version is not None, f"the lint extra pins ruff exactly, not {pin!r}"
    lint = tox()["testenv:lint"]
    assert lint["extras"].split() == ["lint"]
    assert "ruff" not in lint.get("deps", "")
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    revs = re.findall(r"astral-sh/ruff-pre-commit\s+rev: v([\w.]+)", config)
    assert revs == [version[1]]


def commands_pre(env: str) -> list[str]:
    """The install commands the tox env ``env`` (e.g. ``py312``) runs, continuation lines
    joined and factor conditions resolved."""
    text = tox()["testenv"]["commands_pre"].replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        factors, sep, command = line.partition(": ")
        if not (sep and re.fullmatch(r"[\w,]+", factors.strip())):
            command = line
        elif env not in factors.strip().split(","):
            continue
        if command.strip():
            commands.append(" ".join(command.split()))
    return commands


def test_a_tox_env_installs_every_provider_with_its_dependencies() -> None:
    installed_with_deps = " ".join(c for c in commands_pre("py312") if "--no-deps" not in c)
    for plugin in sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir()):
        if (ROOT / "plugins" / plugin / "pyproject.toml").is_file():
            assert f"{{tox_root}}/plugins/{plugin}" in installed_with_deps, plugin


def test_a_tox_env_installs_the_dev_extra() -> None:
    extras = tox()["testenv"]["extras"].split("\n")
    assert "py312: dev" in [line.strip() for line in extras]
    assert "py312" in tox()["tox"]["env_list"]


def test_factor_conditional_commands_fit_on_one_line() -> None:
    """A continuation line of a factor-conditional command would run in every env."""
    for line in tox()["testenv"]["commands_pre"].splitlines():
        if re.match(r"\s*[\w,]+: ", line):
            assert not line.rstrip().endswith("\\"), line
