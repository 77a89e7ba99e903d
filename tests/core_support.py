"""Helpers shared by the core tests (a module of its own: several test folders have a
conftest.py, so importing helpers from "conftest" would be ambiguous)."""

from __future__ import annotations

import asyncio
import importlib.util
import time
from typing import Callable

import pytest

#: Why a test needing the fixture distributions (``tests/fixtures/dists``) is skipped.
FIXTURES_MISSING = (
    "the fixture distributions are not installed (tox installs them; in a venv: pip "
    "install --no-deps --no-build-isolation tests/fixtures/dists/*)"
)

#: Marks a test that needs the fixture extensions (``tests/fixtures/dists/ext_*``).
needs_fixture_extensions = pytest.mark.skipif(
    importlib.util.find_spec("ui_fixture_ext_good") is None, reason=FIXTURES_MISSING
)


#: How long a test waits for something that happens at once on an idle machine: only a
#: broken test ever waits this long, so a busy machine never fails one.
PATIENCE = 60.0


async def until(condition: Callable[[], object], what: str = "the condition") -> None:
    """Return once ``condition()`` is true (checked every few milliseconds of the running
    loop): wait for the event itself, not for a sleep long enough on an idle machine."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"{what}: still false after {PATIENCE} s"
        await asyncio.sleep(0.005)


def wait_until(condition: Callable[[], object], what: str = "the condition") -> None:
    """:func:`until` for a thread without a running loop."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"{what}: still false after {PATIENCE} s"
        time.sleep(0.005)
