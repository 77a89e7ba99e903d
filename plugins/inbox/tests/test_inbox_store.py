"""The stores: the SQLite store on real files (private modes, WAL, the schema version,
acknowledged writes surviving a SIGKILL), and what every store does alike, run against both
SQLite and a real PostgreSQL (``make_store``): keys, the first settlement winning across
connections, purging, remembered decisions."""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from user_interaction_inbox._store import (
    _MIGRATIONS,
    SCHEMA_VERSION,
    KeyConflict,
    SqliteStore,
    Store,
    StoredAsk,
    StoreError,
    default_store_url,
    open_store,
)

from user_interaction import state_dir
from user_interaction.extensions import Decision

QUESTIONS = [{"id": "pkg", "question": "Which package manager?", "options": [{"label": "npm"}]}]
WEEK = 7 * 24 * 3600.0


def ask(
    ask_id: str,
    *,
    key: str | None = None,
    deadline: float | None = None,
    questions: list[dict[str, object]] | None = None,
    created: float | None = None,
) -> StoredAsk:
    request: dict[str, object] = {"questions": QUESTIONS if questions is None else questions}
    if key is not None:
        request["key"] = key
    return StoredAsk(
        id=ask_id,
        request=request,
        agent="agent",
        key=key,
        created=time.time() if created is None else created,
        deadline=deadline,
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_default_store_is_private_in_the_state_directory() -> None:
    old = os.umask(0o022)
    try:
        store = open_store()
        store.add(ask("a1"), WEEK)
    finally:
        os.umask(old)
    path = state_dir() / "inbox.sqlite3"
    assert default_store_url() == f"sqlite://{path}"
    try:
        assert mode(path.parent) == 0o700
        for name in ("inbox.sqlite3", "inbox.sqlite3-wal", "inbox.sqlite3-shm"):
            assert mode(path.parent / name) == 0o600, name
        with closing(sqlite3.connect(path)) as other, other:
            assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert other.execute("SELECT version FROM schema_version").fetchall() == [
                (SCHEMA_VERSION,)
            ]
    finally:
        store.close()


def test_urls_are_checked(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a store URL"):
        open_store("inbox.sqlite3")
    with pytest.raises(StoreError, match="unknown store scheme 'mysql'"):
        open_store("mysql://localhost/inbox")
    # nothing listens there; without the postgres extra the error names the extra instead
    refusal = (
        "cannot connect to the store postgresql://"
        if importlib.util.find_spec("psycopg") is not None
        else r"pip install 'user-interaction-inbox\[postgres\]'"
    )
    with pytest.raises(StoreError, match=refusal):
        open_store("postgresql://nobody:secret@127.0.0.1:1/inbox")
    with pytest.raises(StoreError, match="the only option is synchronous"):
        open_store(f"sqlite://{tmp_path}/asks.db?journal=off")
    with pytest.raises(StoreError, match="the only option is synchronous"):
        open_store(f"sqlite://{tmp_path}/asks.db?synchronous=off")
    store = open_store(f"sqlite://{tmp_path}/sub/asks.db")
    store.close()
    store = open_store(f"sqlite://{tmp_path}/sub/asks.db?synchronous=normal")
    store.add(ask("a1"), WEEK)
    store.close()
    store = open_store(f"sqlite://{tmp_path}/sub/asks.db")
    try:
        assert [found.id for found in store.pending()] == ["a1"]
    finally:
        store.close()
    assert (tmp_path / "sub" / "asks.db").exists()


def test_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "inbox.sqlite3"
    SqliteStore(path).close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    db.close()
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}, newer"):
        SqliteStore(path)
    with closing(sqlite3.connect(path)) as db, db:
        assert db.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION + 1,)
    db.close()


def test_an_older_file_is_migrated_forward(tmp_path: Path) -> None:
    path = tmp_path / "inbox.sqlite3"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (0)")
    db.close()
    store = SqliteStore(path)
    try:
        store.add(ask("a1"), WEEK)
        assert [found.id for found in store.pending()] == ["a1"]
    finally:
        store.close()


def test_a_file_of_the_first_schema_keeps_its_asks_and_gains_decisions(tmp_path: Path) -> None:
    path = tmp_path / "inbox.sqlite3"
    # what the first release wrote: version 1, asks only
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (1)")
        for statement in _MIGRATIONS[0]:
            db.execute(statement)
        db.execute(
            "INSERT INTO asks (id, request, agent, key, created, deadline, state) "
            "VALUES ('old', ?, 'agent', NULL, 1.0, NULL, 'pending')",
            (json.dumps({"questions": QUESTIONS}),),
        )
    db.close()
    store = SqliteStore(path)
    try:
        assert [found.id for found in store.pending()] == ["old"]
        assert store.decisions() == []
        store.decide("tool:deploy", True, at=5.0)
        assert store.decision("tool:deploy") == Decision("tool:deploy", True, 5.0)
    finally:
        store.close()
    with closing(sqlite3.connect(path)) as db, db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    db.close()


def test_a_file_of_the_second_schema_gains_notified_at_its_pending_asks_unsent(
    tmp_path: Path,
) -> None:
    """Version 2 knew nothing of notifications: its pending asks were never announced, so
    a server starting with --notify sends them (oldest first); settled ones never."""
    path = tmp_path / "inbox.sqlite3"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (2)")
        for statements in _MIGRATIONS[:2]:
            for statement in statements:
                db.execute(statement)
        rows = (("new", 2.0, "pending"), ("old", 1.0, "pending"), ("done", 0.5, "answered"))
        for ask_id, created, state in rows:
            db.execute(
                "INSERT INTO asks (id, request, agent, key, created, deadline, state) "
                "VALUES (?, ?, 'agent', NULL, ?, NULL, ?)",
                (ask_id, json.dumps({"questions": QUESTIONS}), created, state),
            )
    db.close()
    assert SCHEMA_VERSION == 3
    store = SqliteStore(path)
    try:
        assert [found.id for found in store.unnotified()] == ["old", "new"]
        store.mark_notified("old", 10.0)
        store.mark_notified("done", 10.0)  # marking a settled ask changes nothing it shows
        assert [found.id for found in store.unnotified()] == ["new"]
    finally:
        store.close()
    with closing(sqlite3.connect(path)) as db, db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(3,)]
        rows = db.execute("SELECT id, notified_at FROM asks ORDER BY id").fetchall()
        assert rows == [("done", 10.0), ("new", None), ("old", 10.0)]
    db.close()


def test_unnotified_lists_pending_asks_until_marked_across_connections(
    make_store: Callable[[], Store],
) -> None:
    first, second = make_store(), make_store()
    first.add(ask("a1", created=1.0), WEEK)
    first.add(ask("a2", created=2.0, key="k"), WEEK)
    assert [found.id for found in second.unnotified()] == ["a1", "a2"]
    second.mark_notified("a2", 5.0)
    second.mark_notified("a2", 6.0)  # the first mark stays
    assert [found.id for found in first.unnotified()] == ["a1"]
    first.settle("a1", "cancelled", by="ann", at=7.0)
    assert first.unnotified() == []  # settled: nobody needs telling any more
    joined, was_joined = first.add(ask("a3", key="k"), WEEK)
    assert (joined.id, was_joined) == ("a2", True)
    assert first.unnotified() == []  # a join is not a new ask
    if isinstance(first, SqliteStore):
        with closing(sqlite3.connect(first.path)) as db, db:
            rows = db.execute("SELECT notified_at FROM asks WHERE id = 'a2'").fetchall()
        db.close()
    else:
        import psycopg
        from user_interaction_inbox._postgres import PostgresStore

        assert isinstance(first, PostgresStore)
        with psycopg.connect(first.url) as connection:
            rows = connection.execute("SELECT notified_at FROM asks WHERE id = 'a2'").fetchall()
    assert rows == [(5.0,)]


def test_postgres_needs_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "user_interaction_inbox._postgres", raising=False)
    with pytest.raises(StoreError, match=r"pip install 'user-interaction-inbox\[postgres\]'"):
        open_store("postgresql://127.0.0.1/inbox")


def test_decisions_are_kept_replaced_and_forgotten_across_connections(
    make_store: Callable[[], Store],
) -> None:
    first, second = make_store(), make_store()
    assert first.decision("tool:deploy") is None
    made = first.decide("tool:deploy", True)
    assert made.allowed is True
    assert abs(made.decided - time.time()) < 3600  # now, as wall-clock time
    assert second.decision("tool:deploy") == made
    denied = second.decide("tool:deploy", False, at=made.decided + 1)
    assert first.decision("tool:deploy") == denied  # replaced, not added
    first.decide("shell:rm", True, at=3.0)
    first.decide("a:first", False, at=4.0)
    assert [d.name for d in second.decisions()] == ["a:first", "shell:rm", "tool:deploy"]
    assert second.decisions()[0].to_dict() == {
        "name": "a:first",
        "decision": "deny",
        "decided": "1970-01-01T00:00:04Z",
    }
    assert second.forget_decisions("nothing") == 0
    assert second.forget_decisions("shell:rm") == 1
    assert first.decision("shell:rm") is None
    assert first.forget_decisions() == 2
    assert second.decisions() == []
    if isinstance(first, SqliteStore):
        with pytest.raises(sqlite3.IntegrityError):
            first._db.execute("INSERT INTO decisions VALUES ('x', 2, 1.0)")


def test_keys_join_collect_conflict_and_release(make_store: Callable[[], Store]) -> None:
    store = make_store()
    first, joined = store.add(ask("a1", key="deploy", deadline=100.0), WEEK)
    assert (first.id, joined) == ("a1", False)
    again, joined = store.add(ask("a2", key="deploy", deadline=200.0), WEEK)
    assert (again.id, joined, again.deadline) == ("a1", True, 200.0)  # the later deadline
    again, _ = store.add(ask("a3", key="deploy", deadline=None), WEEK)
    assert again.deadline is None  # no deadline is the latest of all
    other = [{"id": "pkg", "question": "Something else?"}]
    with pytest.raises(KeyConflict, match="key 'deploy' already names ask a1"):
        store.add(ask("a4", key="deploy", questions=other), WEEK)
    assert store.settle("a1", "answered", answer={"answers": []}, by="me", at=time.time())
    collected, joined = store.add(ask("a5", key="deploy"), WEEK)
    assert (collected.id, collected.state, joined) == ("a1", "answered", True)
    assert collected.answer == {"answers": []}
    assert collected.settled_by == "me"
    # Past the retention, the key asks again.
    store.add(ask("b1", key="old"), WEEK)
    assert store.settle("b1", "declined", by="me", at=time.time() - 2 * WEEK)
    fresh, joined = store.add(ask("b2", key="old"), WEEK)
    assert (fresh.id, joined) == ("b2", False)
    # Withdrawn or expired asks release their key at once.
    for state in ("withdrawn", "expired"):
        assert store.settle("b2" if state == "withdrawn" else "b3", state, by="x", at=time.time())
        fresh, joined = store.add(ask("b3" if state == "withdrawn" else "b4", key="old"), WEEK)
        assert not joined
    assert [found.id for found in store.pending()] == ["b4"]


def test_the_first_settlement_wins_across_connections(make_store: Callable[[], Store]) -> None:
    one, two = make_store(), make_store()
    one.add(ask("a1"), WEEK)
    assert one.settle("a1", "answered", answer={"answers": []}, by="one", at=1.0)
    assert not two.settle("a1", "cancelled", by="two", at=2.0)
    settled = two.get("a1")
    assert settled is not None
    assert (settled.state, settled.settled_by, settled.settled) == ("answered", "one", 1.0)


def test_purge_forgets_only_settled_asks_older_than_retention(
    make_store: Callable[[], Store],
) -> None:
    store = make_store()
    store.add(ask("old"), WEEK)
    store.add(ask("new"), WEEK)
    store.add(ask("open"), WEEK)
    store.settle("old", "answered", answer={"answers": []}, by="me", at=10.0)
    store.settle("new", "answered", answer={"answers": []}, by="me", at=30.0)
    assert store.purge(20.0) == 1
    assert store.get("old") is None
    assert store.get("new") is not None
    assert store.get("open") is not None


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from user_interaction_inbox._store import SqliteStore, StoredAsk

    store = SqliteStore(Path(sys.argv[1]))
    prefix = sys.argv[2]
    for number in range(100000):
        ask_id = f"{prefix}-{number}"
        store.add(StoredAsk(ask_id, {"questions": []}, "w", None, time.time(), None), 1e9)
        store.settle(ask_id, "answered", answer={"answers": []}, by=prefix, at=time.time())
        print(ask_id, flush=True)
    """
)


def test_acknowledged_writes_survive_sigkill_with_several_writers(tmp_path: Path) -> None:
    """Four processes write at once (BEGIN IMMEDIATE waits on the busy timeout instead of
    failing); each is killed with SIGKILL after 30 acknowledgements: every acknowledged
    ask is in the file, answered."""
    path = tmp_path / "inbox.sqlite3"
    SqliteStore(path).close()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"w{number}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for number in range(4)
    ]
    acknowledged: list[str] = []
    for writer in writers:
        assert writer.stdout is not None
        for _ in range(30):
            line = writer.stdout.readline()
            assert line, writer.stderr.read() if writer.stderr else ""
            acknowledged.append(line.strip())
    for writer in writers:
        writer.kill()
        writer.wait()
        assert writer.stdout is not None
        acknowledged.extend(line.strip() for line in writer.stdout if line.strip())
        assert writer.stderr is not None
        errors = writer.stderr.read()
        writer.stdout.close()
        writer.stderr.close()
        assert "locked" not in errors, errors
    store = SqliteStore(path)
    try:
        for ask_id in acknowledged:
            found = store.get(ask_id)
            assert found is not None, ask_id
            assert found.state == "answered", ask_id
    finally:
        store.close()


def test_add_many_is_one_transaction_with_a_result_per_ask(
    make_store: Callable[[], Store],
) -> None:
    store = make_store()
    other = [{"id": "x", "question": "Something else?"}]
    results = store.add_many(
        [
            ask("a1", key="k"),
            ask("a2", key="k", questions=other),
            ask("a3", key="k"),
            ask("a4"),
        ],
        WEEK,
    )
    assert results[0] == (ask("a1", key="k", created=results[0][0].created), False)  # type: ignore[index]
    assert isinstance(results[1], KeyConflict)
    assert results[2][0].id == "a1"  # type: ignore[index]
    assert results[2][1] is True  # type: ignore[index]
    assert results[3][0].id == "a4"  # type: ignore[index]
    assert [found.id for found in store.pending()] == ["a1", "a4"]
