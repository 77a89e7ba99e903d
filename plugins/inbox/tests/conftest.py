"""Fixtures of the inbox's tests. Without the inbox installed (it needs Python 3.10+) the
root conftest.py skips this directory; this file only has to import."""

from __future__ import annotations

import importlib.util
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if importlib.util.find_spec("user_interaction_inbox") is not None:
    from inbox_support import Agent, Inbox
    from page_support import launch
    from postgres_support import Cluster, why_no_postgres
    from user_interaction_inbox._store import SqliteStore, Store

    if TYPE_CHECKING:
        from playwright.sync_api import Browser

    def postgres_cluster_here() -> Cluster:
        """A throwaway cluster; the test is skipped (failed under CI) when none can run."""
        reason = why_no_postgres()
        if reason is not None:
            if os.environ.get("CI") == "true":
                pytest.fail(f"CI runs the PostgreSQL tests, but {reason}")
            pytest.skip(reason)
        return Cluster()

    @pytest.fixture(scope="session")
    def postgres_cluster() -> Iterator[Cluster]:
        """One PostgreSQL cluster per test process (each test has a database of its own)."""
        cluster = postgres_cluster_here()
        yield cluster
        cluster.destroy()

    @pytest.fixture
    def postgres_url(postgres_cluster: Cluster) -> str:
        """The URL of a new, empty database for this test."""
        return postgres_cluster.create_database(f"test_{secrets.token_hex(6)}")

    @pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
    def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
        """Opens the test's store (SQLite, or PostgreSQL), each call a new connection to
        the same asks; all closed at the end."""
        opened: list[Store] = []
        if request.param == "sqlite":
            path = tmp_path / "inbox.sqlite3"

            def make() -> Store:
                opened.append(SqliteStore(path))
                return opened[-1]

        else:
            url = request.getfixturevalue("postgres_url")  # skips, or fails in CI, first
            from user_interaction_inbox._postgres import PostgresStore

            def make() -> Store:
                opened.append(PostgresStore(url))
                return opened[-1]

        yield make
        for store in opened:
            store.close()

    @pytest.fixture(autouse=True)
    def _agents_end() -> Iterator[None]:
        """Kills the agent processes a failed test leaves running, before the next test."""
        yield
        Agent.end_all()

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
