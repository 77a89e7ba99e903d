"""Several inbox servers on one real PostgreSQL database (a throwaway cluster): its schema,
an ask posted through one server and answered through another, the first answer winning
across servers, a database restart and a server's SIGKILL while an agent waits."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from inbox_support import NPM, REQUEST, Agent, Inbox, cli, wait_until
from postgres_support import Cluster
from user_interaction_inbox._store import SCHEMA_VERSION as SQLITE_SCHEMA
from user_interaction_inbox._store import StoredAsk, StoreError, open_store

pytestmark = pytest.mark.postgres

try:
    import psycopg
    from user_interaction_inbox._postgres import (
        _MIGRATIONS,
        CHANNEL,
        SCHEMA_VERSION,
        PostgresStore,
    )
except ImportError:  # no postgres extra: _needs_postgres skips each test (fails it in CI)
    pass

WEEK = 7 * 24 * 3600.0


@pytest.fixture(autouse=True)
def _needs_postgres(postgres_cluster: Cluster) -> None:
    """Every test here needs a cluster: skipped without one (psycopg or the server
    binaries missing), and failed instead under CI, which installs them. A fixture, not
    an import-time skip, so that an env deselecting these tests never collects a failure."""


@pytest.fixture
def states(tmp_path: Path) -> tuple[Path, Path]:
    """The state directories of server A and server B (each its own token and
    ``inbox.json``, as on two machines)."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(mode=0o700)
    second.mkdir(mode=0o700)
    return first, second


@pytest.fixture
def servers(states: tuple[Path, Path], postgres_url: str) -> Iterator[tuple[Inbox, Inbox]]:
    """``inbox serve`` twice on one database."""
    first = Inbox(states[0], "--store", postgres_url)
    second = Inbox(states[1], "--store", postgres_url)
    yield first, second
    first.stop()
    second.stop()


def version(url: str) -> int:
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT version FROM schema_version").fetchone()
    assert row is not None
    return int(row[0])


# -- the schema -------------------------------------------------------------------------


def test_the_schema_is_created_versioned_and_refused_when_newer(postgres_url: str) -> None:
    store = open_store(postgres_url)
    assert isinstance(store, PostgresStore)
    store.close()
    assert version(postgres_url) == SCHEMA_VERSION == SQLITE_SCHEMA == 3  # one version
    with psycopg.connect(postgres_url) as connection:
        connection.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}, newer"):
        open_store(postgres_url)
    assert version(postgres_url) == SCHEMA_VERSION + 1  # left alone


def test_a_database_of_the_first_schema_keeps_its_asks(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as connection:
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version VALUES (1)")
        for statement in _MIGRATIONS[0]:
            connection.execute(statement)
        connection.execute(
            "INSERT INTO asks (id, request, agent, key, created, deadline, state) "
            "VALUES ('old', %s, 'agent', NULL, 1.0, NULL, 'pending')",
            (json.dumps(REQUEST),),
        )
    store = PostgresStore(postgres_url)
    try:
        assert [found.id for found in store.pending()] == ["old"]
        assert [found.id for found in store.unnotified()] == ["old"]
        store.mark_notified("old", 5.0)
        assert store.unnotified() == []
        assert store.decisions() == []
    finally:
        store.close()
    assert version(postgres_url) == 3


def test_servers_starting_together_migrate_once(postgres_url: str) -> None:
    opened: list[PostgresStore] = []
    failures: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresStore(postgres_url))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in opened:
        store.close()
    assert failures == []
    assert version(postgres_url) == SCHEMA_VERSION


def test_each_change_is_announced_when_committed(postgres_url: str) -> None:
    """A listener hears the ask's id for an insert and for a settlement, never for a
    settlement that lost."""
    store = PostgresStore(postgres_url)
    try:
        with psycopg.connect(postgres_url, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            store.add(StoredAsk("a1", REQUEST, "agent", None, 1.0, None), WEEK)
            assert store.settle("a1", "answered", answer=NPM, by="one", at=2.0)
            assert not store.settle("a1", "cancelled", by="two", at=3.0)
            store.add(StoredAsk("a2", REQUEST, "agent", None, 4.0, None), WEEK)
            heard = [notice.payload for notice in listener.notifies(stop_after=3, timeout=30)]
    finally:
        store.close()
    assert heard == ["a1", "a1", "a2"]


# -- several servers ------------------------------------------------------------------------


def test_an_ask_posted_through_one_server_is_answered_through_another(
    states: tuple[Path, Path], servers: tuple[Inbox, Inbox]
) -> None:
    first, second = servers
    agent = Agent(states[0])  # finds server A through its inbox.json
    (listed,) = second.wait_for_pending(1)
    shown = cli(states[1], "inbox", "list", "--json")
    assert shown.returncode == 0, shown.stderr
    assert [ask["id"] for ask in json.loads(shown.stdout)["asks"]] == [listed["id"]]
    answered = cli(states[1], "inbox", "answer", listed["id"], "--answer", json.dumps(NPM))
    assert answered.returncode == 0, answered.stderr
    assert agent.outcome() == {"answer": NPM}
    first.wait_for_pending(0)  # and A's list follows
    again = cli(states[0], "inbox", "answer", listed["id"], "--answer", json.dumps(NPM))
    assert again.returncode == 1
    assert "is already answered by " in again.stderr  # who, and when


def test_the_first_answer_wins_across_servers(servers: tuple[Inbox, Inbox]) -> None:
    first, second = servers
    for round_number in range(5):
        posted = first.call("POST", "/api/asks", {"request": REQUEST, "agent": "racer"})
        assert posted.status == 200, posted
        ask_id = posted.body["id"]
        second.wait_for_pending(1)
        start = threading.Barrier(8)
        replies: list[tuple[str, int, dict[str, object]]] = []

        def settle(
            server: Inbox,
            name: str,
            start: threading.Barrier = start,
            ask_id: str = ask_id,
            replies: list[tuple[str, int, dict[str, object]]] = replies,
        ) -> None:
            start.wait()
            reply = server.call(
                "POST",
                f"/api/asks/{ask_id}/settle",
                {"action": "answer", "answer": NPM, "by": name},
            )
            replies.append((name, reply.status, reply.body))

        threads = [
            threading.Thread(target=settle, args=((first, second)[n % 2], f"human{n}"))
            for n in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [name for name, status, _ in replies if status == 200]
        assert len(winners) == 1, (round_number, replies)
        for name, status, body in replies:
            if name != winners[0]:
                assert status == 409, body  # saying who answered, and when
                assert (body["state"], body["settledBy"]) == ("answered", winners[0])
                assert isinstance(body["settled"], float)
        for server in servers:
            got = server.call("GET", f"/api/asks/{ask_id}")
            assert (got.body["state"], got.body["settledBy"]) == ("answered", winners[0])
            server.wait_for_pending(0)


def test_an_agent_keeps_waiting_through_a_database_restart(states: tuple[Path, Path]) -> None:
    cluster = Cluster()  # a cluster of its own: this test restarts it
    try:
        url = cluster.create_database("inbox")
        first = Inbox(states[0], "--store", url)
        second = Inbox(states[1], "--store", url)
        try:
            agent = Agent(states[0], key="deploy:42")
            (listed,) = second.wait_for_pending(1)
            wait_until(lambda: first.call("GET", "/api/inbox").body["waiting"] == 1, "a wait")
            cluster.restart()  # every connection of both servers drops
            # answered through B at once: A hears it by its notification, or by reading
            # the pending asks again once it listens again
            answered = cli(states[1], "inbox", "answer", listed["id"], "--answer", json.dumps(NPM))
            assert answered.returncode == 0, answered.stderr
            assert agent.outcome() == {"answer": NPM}
            fresh = Agent(states[0])  # and A stores new asks again
            (again,) = second.wait_for_pending(1)
            cli(states[1], "inbox", "answer", again["id"], "--answer", json.dumps(NPM))
            assert fresh.outcome() == {"answer": NPM}
        finally:
            log = first.stop()
            second.stop()
    finally:
        cluster.destroy()
    lost = [line for line in log.splitlines() if "is unreachable" in line]
    back = [line for line in log.splitlines() if "is reachable again" in line]
    assert len(lost) == 1, log
    assert len(back) == 1, log
    assert "Traceback" not in log
    assert "postgres@127.0.0.1" in lost[0]


def test_a_server_killed_mid_ask_loses_nothing(
    states: tuple[Path, Path], servers: tuple[Inbox, Inbox], postgres_url: str
) -> None:
    first, second = servers
    keyed = Agent(states[0], key="build:7")
    unkeyed = Agent(states[0])
    listed = second.wait_for_pending(2)
    wait_until(lambda: first.call("GET", "/api/inbox").body["waiting"] == 2, "two waits")
    first.kill()
    # answered through B while A is down; the other one once A is back
    by_key = {ask["key"]: ask["id"] for ask in listed}
    done = cli(states[1], "inbox", "answer", by_key["build:7"], "--answer", json.dumps(NPM))
    assert done.returncode == 0, done.stderr
    restarted = Inbox(states[0], "--store", postgres_url)
    try:
        assert keyed.outcome() == {"answer": NPM}
        wait_until(lambda: restarted.call("GET", "/api/inbox").body["waiting"] == 1, "a wait")
        done = cli(states[1], "inbox", "answer", by_key[None], "--answer", json.dumps(NPM))
        assert done.returncode == 0, done.stderr
        assert unkeyed.outcome() == {"answer": NPM}
        restarted.wait_for_pending(0)
    finally:
        restarted.stop()


def test_a_page_on_one_server_follows_the_asks_of_another(servers: tuple[Inbox, Inbox]) -> None:
    """The page's event stream on B hears an ask posted through A arrive and leave."""
    import http.client
    import urllib.parse

    first, second = servers
    address = second.address
    where = urllib.parse.urlsplit(address.base)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
    try:
        connection.request("GET", "/api/events", headers={"X-UI-Token": address.token})
        response = connection.getresponse()
        assert response.status == 200
        seen = b""

        def until_event(text: bytes) -> None:
            nonlocal seen
            while text not in seen:
                chunk = response.read1(1 << 16)
                assert chunk, seen
                seen += chunk

        until_event(b"event: snapshot")
        posted = first.call("POST", "/api/asks", {"request": REQUEST, "agent": "elsewhere"})
        ask_id = posted.body["id"]
        until_event(f'"askId":"{ask_id}"'.encode())
        assert b"event: ask" in seen
        settled = first.call(
            "POST", f"/api/asks/{ask_id}/settle", {"action": "answer", "answer": NPM, "by": "x"}
        )
        assert settled.status == 200, settled
        until_event(b"event: settled")
    finally:
        connection.close()


def test_the_password_stays_out_of_the_servers_messages(state: Path, postgres_url: str) -> None:
    with_password = postgres_url.replace("postgres@", "postgres:s3cret-pw@")
    server = Inbox(state, "--store", with_password)  # trust authentication ignores it
    log = server.stop()
    assert "store postgresql://postgres@127.0.0.1:" in server.first_line
    assert "s3cret-pw" not in log
