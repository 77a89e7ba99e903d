"""Shared by every test directory of the repository.

The test environment has deliberately broken extensions installed
(``tests/fixtures/dists/ext_broken``), and a broken installed extension fails every ask
(docs/writing-an-extension.md). So installed extensions are not autoloaded in the tests —
nor in the processes they start, which inherit the environment — unless a test turns
autoload back on.

Each test gets a state directory of its own (``USER_INTERACTION_STATE_DIR``), and
``USER_INTERACTION_INBOX`` is unset: an inbox running on the developer's machine never
changes which provider a test gets, and no test sees another's inbox or decisions.

A provider's tests (``plugins/<name>/tests``) need that provider installed: when it is
not (CONTRIBUTING's quick set-up installs only the core and ``stdio``), the directory is
reported as skipped, with what to install, instead of failing to import.

``tests/child_support.py`` is how every test reads a child process's stderr: ``tests/``
goes on ``sys.path`` here, so a provider's tests find it when run on their own.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD", "1")

TESTS = str(Path(__file__).resolve().parent / "tests")
if TESTS not in sys.path:
    sys.path.append(TESTS)


@pytest.fixture(autouse=True)
def _own_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER_INTERACTION_STATE_DIR", str(tmp_path_factory.mktemp("state")))
    monkeypatch.delenv("USER_INTERACTION_INBOX", raising=False)


PLUGINS = Path(__file__).resolve().parent / "plugins"

#: Modules a provider's tests import beyond the provider (its ``test`` extra).
TEST_MODULES = {"tui": ("pexpect", "pyte")}


def missing_for(name: str) -> str | None:
    """Why the tests of ``plugins/<name>`` cannot run here, or ``None`` when they can."""
    missing = [
        module
        for module in (f"user_interaction_{name}", *TEST_MODULES.get(name, ()))
        if importlib.util.find_spec(module) is None
    ]
    if not missing:
        return None
    extra = "[test]" if TEST_MODULES.get(name) else ""
    return (
        f"plugins/{name}/tests: {', '.join(missing)} not installed "
        f"(pip install -e 'plugins/{name}{extra}' to run them)"
    )


class NotInstalled(pytest.Directory):
    """A provider's test directory whose provider is not installed: each test module in
    it is reported as skipped, saying what to install."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return [
            NotInstalledModule.from_parent(self, path=path)
            for path in sorted(self.path.glob("test_*.py"))
        ]


class NotInstalledModule(pytest.File):
    def collect(self) -> list[pytest.Item | pytest.Collector]:
        pytest.skip(missing_for(self.path.parent.parent.name) or "the provider is installed")


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if path.name == "tests" and path.parent.parent == PLUGINS and missing_for(path.parent.name):
        return NotInstalled.from_parent(parent, path=path)
    return None
