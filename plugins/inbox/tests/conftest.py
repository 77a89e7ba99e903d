"""Fixtures of the inbox's tests. Without the inbox installed (it needs Python 3.10+) the
root conftest.py skips this directory; this file only has to import."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if importlib.util.find_spec("user_interaction_inbox") is not None:
    from inbox_support import Inbox
    from page_support import launch

    if TYPE_CHECKING:
        from playwright.sync_api import Browser

    @pytest.fixture
    def state() -> Path:
        """This test's state directory (the root conftest.py makes one per test)."""
        return Path(os.environ["USER_INTERACTION_STATE_DIR"])

    @pytest.fixture
    def inbox(state: Path) -> Iterator[Inbox]:
        server = Inbox(state)
        yield server
        server.stop()

    @pytest.fixture(scope="module")  # not longer: sync Playwright keeps a loop running
    def browser() -> Iterator[Browser]:
        yield from launch()
