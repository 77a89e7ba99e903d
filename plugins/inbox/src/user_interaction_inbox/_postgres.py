"""The inbox's store in PostgreSQL (psycopg 3 and its connection pool): one database that
several inbox servers share, on one machine or many.

Every change is one transaction that also sends ``pg_notify`` with the ask's id: a
notification is delivered at COMMIT, so no server hears of a change that is not stored.
Each server listens on a connection of its own (:meth:`PostgresStore.watch`) and reads the
row again on every notification; after every (re)connection it reads every pending ask
again, since notifications sent while nobody listened are gone. The table is the truth,
the notification a hint.

The first settlement wins across servers in one statement: ``UPDATE … WHERE state =
'pending'`` changes one row for the first and none for the others, who wait on the row's
lock and then find it settled.

A lost database is retried with backoff (the listener reconnects; the pool checks every
connection before lending it) and reported once per outage: one warning when it is lost,
one when it is back. Meanwhile the store's methods raise :class:`StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

import attrs
import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from user_interaction.extensions import Decision

from ._store import (
    _HOLDS_KEY,
    KeyConflict,
    State,
    StoredAsk,
    StoreError,
    StoreUnavailable,
    _later,
)

__all__ = ["CHANNEL", "SCHEMA_VERSION", "PostgresStore"]

_log = logging.getLogger("user_interaction_inbox.postgres")

#: The channel every change is announced on (``pg_notify``), with the ask's id as payload.
CHANNEL: Final = "user_interaction_inbox"
#: Pauses between attempts to reach a database that is down, the last one repeated.
_BACKOFF: Final = (0.2, 0.5, 1.0, 2.0, 5.0)
#: How long a store method waits for a connection before reporting the database lost.
_CONNECTION_WAIT: Final = 5.0
#: The transaction-scoped advisory lock taken while the schema is created or migrated, so
#: that servers starting together on an empty database migrate it once.
_MIGRATION_LOCK: Final = 0x75_69_6E_62  # "uinb"
#: Settings of every connection: a dead peer is noticed within about half a minute even
#: when the network drops it silently (TCP keepalives), and connecting gives up after 5 s.
_CONNECTION_KWARGS: Final[dict[str, Any]] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}

#: The schema's migrations, in order (the same versions as the SQLite store's):
#: ``_MIGRATIONS[n]`` takes version ``n`` to ``n + 1``. Append, never edit.
_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE asks (
            id TEXT PRIMARY KEY,
            request JSONB NOT NULL,
            agent TEXT NOT NULL,
            key TEXT,
            created DOUBLE PRECISION NOT NULL,
            deadline DOUBLE PRECISION,
            state TEXT NOT NULL CHECK (state IN
                ('pending', 'answered', 'cancelled', 'declined', 'expired', 'withdrawn')),
            answer JSONB,
            error JSONB,
            settled_by TEXT,
            settled DOUBLE PRECISION
        )""",
        "CREATE INDEX asks_by_key ON asks (key) WHERE key IS NOT NULL",
        "CREATE INDEX asks_by_state ON asks (state, created)",
    ),
    # 1 -> 2: the approvals remembered as "Always allow" / "Always deny".
    (
        """CREATE TABLE decisions (
            name TEXT PRIMARY KEY,
            allowed BOOLEAN NOT NULL,
            decided DOUBLE PRECISION NOT NULL
        )""",
    ),
    # 2 -> 3: when the notification of a new ask was sent (NULL until it was).
    ("ALTER TABLE asks ADD COLUMN notified_at DOUBLE PRECISION",),
)
#: The schema version this code writes.
SCHEMA_VERSION: Final = len(_MIGRATIONS)
_COLUMNS: Final = (
    "id, request, agent, key, created, deadline, state, answer, error, settled_by, settled"
)


class _Outage:
    """Whether the database is lost, so that an outage is reported once when it begins and
    once when it ends, whichever connection notices."""

    def __init__(self, where: str) -> None:
        self._where = where
        self._lock = threading.Lock()
        self._since: float | None = None

    def lost(self, exc: BaseException) -> None:
        with self._lock:
            if self._since is not None:
                return
            self._since = time.monotonic()
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        _log.warning(
            "the database %s is unreachable (%s); retrying, asks already waiting keep waiting",
            self._where,
            reason,
        )

    def back(self) -> None:
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            _log.warning(
                "the database %s is reachable again (after %.1f s)",
                self._where,
                time.monotonic() - since,
            )


class PostgresStore:
    """The asks in a PostgreSQL database named by ``url`` (a libpq connection URL:
    ``postgresql://user:password@host:port/dbname?options``). The schema is created or
    migrated forward on open; a newer one than this code knows is refused."""

    #: Other servers write to this database too: :meth:`watch` reports their changes.
    shared: Final = True

    def __init__(self, url: str) -> None:
        self.url = url
        self._outage = _Outage(_safe(url))
        try:  # at once, with libpq's own words, rather than after the pool's timeout
            psycopg.connect(url, **_CONNECTION_KWARGS).close()
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())[:300]
            raise StoreError(f"cannot connect to the store {_safe(url)}: {reason}") from exc
        _quiet_pool_log()
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            # autocommit: one statement is one transaction (no BEGIN, no COMMIT to wait
            # for); several statements that belong together take a transaction block.
            kwargs={**_CONNECTION_KWARGS, "autocommit": True},
            min_size=1,
            max_size=8,
            timeout=_CONNECTION_WAIT,
            check=ConnectionPool.check_connection,
            open=False,
            name="user-interaction-inbox",
        )
        try:
            self._pool.open(wait=True, timeout=_CONNECTION_WAIT * 2)
        except PoolTimeout as exc:
            self._pool.close()
            raise StoreError(f"cannot connect to the store {_safe(url)}: {exc}") from exc
        try:
            self._migrate()
        except BaseException:
            self._pool.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in a transaction, committed when the block ends."""
        with self._connection() as connection, connection.transaction():
            yield connection

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection for one statement (its own transaction); a lost database
        raises :class:`StoreUnavailable` (and is reported once)."""
        try:
            with self._pool.connection() as connection:
                yield connection
        except (psycopg.OperationalError, PoolTimeout) as exc:
            self._outage.lost(exc)
            raise StoreUnavailable(f"the store {_safe(self.url)} is unreachable: {exc}") from exc
        self._outage.back()

    def _migrate(self) -> None:
        with self._transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if row is None:
                db.execute("INSERT INTO schema_version (version) VALUES (0)")
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the store {_safe(self.url)} has schema version {version}, newer than "
                    f"this user-interaction-inbox knows ({SCHEMA_VERSION}): upgrade it, or "
                    "use another --store"
                )
            for statements in _MIGRATIONS[version:]:
                for statement in statements:
                    db.execute(statement)
            db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))

    # -- asks ----------------------------------------------------------------------------

    def add(self, ask: StoredAsk, retain: float) -> tuple[StoredAsk, bool]:
        (result,) = self.add_many([ask], retain)
        if isinstance(result, KeyConflict):
            raise result
        return result

    def add_many(
        self, asks: Sequence[StoredAsk], retain: float
    ) -> list[tuple[StoredAsk, bool] | KeyConflict]:
        with self._transaction() as db:
            # One lock per key until COMMIT, taken in one order (no deadlock between two
            # servers' batches): two servers adding one key at once make one ask.
            for key in sorted({ask.key for ask in asks if ask.key is not None}):
                db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))
            return [_add(db, ask, retain) for ask in asks]

    def get(self, ask_id: str) -> StoredAsk | None:
        with self._connection() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM asks WHERE id = %s", (ask_id,)).fetchone()
        return None if row is None else _ask(row)

    def pending(self) -> list[StoredAsk]:
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM asks WHERE state = 'pending' ORDER BY created, id"
            ).fetchall()
        return [_ask(row) for row in rows]

    def settle(
        self,
        ask_id: str,
        state: State,
        *,
        answer: dict[str, Any] | None = None,
        error: dict[str, str] | None = None,
        by: str,
        at: float,
    ) -> bool:
        with self._connection() as db:
            # One statement: the change and its announcement commit together, and only
            # the first to settle changes a row (the others change nothing, announce nothing).
            cursor = db.execute(
                "WITH won AS (UPDATE asks SET state = %s, answer = %s, error = %s, "
                "settled_by = %s, settled = %s WHERE id = %s AND state = 'pending' "
                "RETURNING id) SELECT pg_notify(%s, id) FROM won",
                (
                    state,
                    None if answer is None else Jsonb(answer),
                    None if error is None else Jsonb(error),
                    by,
                    at,
                    ask_id,
                    CHANNEL,
                ),
            )
            return cursor.rowcount == 1

    def purge(self, before: float) -> int:
        with self._connection() as db:
            cursor = db.execute(
                "DELETE FROM asks WHERE state != 'pending' AND settled < %s", (before,)
            )
            return cursor.rowcount

    def unnotified(self) -> list[StoredAsk]:
        """Every pending ask whose notification was never marked sent, oldest first."""
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM asks WHERE state = 'pending' AND notified_at IS NULL "
                "ORDER BY created, id"
            ).fetchall()
        return [_ask(row) for row in rows]

    def mark_notified(self, ask_id: str, at: float) -> None:
        """Remember that the notification of ``ask_id`` was sent ``at``."""
        with self._connection() as db:
            db.execute(
                "UPDATE asks SET notified_at = %s WHERE id = %s AND notified_at IS NULL",
                (at, ask_id),
            )

    # -- remembered approvals ------------------------------------------------------------

    def decision(self, name: str) -> Decision | None:
        with self._connection() as db:
            row = db.execute(
                "SELECT name, allowed, decided FROM decisions WHERE name = %s", (name,)
            ).fetchone()
        return None if row is None else Decision(row[0], bool(row[1]), row[2])

    def decide(self, name: str, allowed: bool, *, at: float | None = None) -> Decision:
        decision = Decision(name, allowed, time.time() if at is None else at)
        with self._connection() as db:
            db.execute(
                "INSERT INTO decisions (name, allowed, decided) VALUES (%s, %s, %s) "
                "ON CONFLICT (name) DO UPDATE SET allowed = EXCLUDED.allowed, "
                "decided = EXCLUDED.decided",
                (name, allowed, decision.decided),
            )
        return decision

    def forget_decisions(self, name: str | None = None) -> int:
        with self._connection() as db:
            if name is None:
                return db.execute("DELETE FROM decisions").rowcount
            return db.execute("DELETE FROM decisions WHERE name = %s", (name,)).rowcount

    def decisions(self) -> list[Decision]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT name, allowed, decided FROM decisions ORDER BY name"
            ).fetchall()
        return [Decision(name, bool(allowed), decided) for name, allowed, decided in rows]

    # -- changes made elsewhere ----------------------------------------------------------

    async def watch(self, changed: Callable[[str | None], Awaitable[None]]) -> None:
        """Until cancelled: ``LISTEN`` on a connection of its own and await ``changed(id)``
        for every change committed by any server (this one included), in order; after
        every (re)connection, ``changed(None)`` first (read every pending ask again). A
        lost connection is retried with backoff and reported once."""
        failures = 0
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, **_CONNECTION_KWARGS
                )
                async with connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self._outage.back()
                    failures = 0
                    await changed(None)
                    async for notice in connection.notifies():
                        await changed(notice.payload)
            except (psycopg.Error, StoreError) as exc:  # any failure: connect again
                self._outage.lost(exc)
            await asyncio.sleep(_BACKOFF[min(failures, len(_BACKOFF) - 1)])
            failures += 1

    def close(self) -> None:
        self._pool.close()


class _OneLinePerOutage(logging.Filter):
    """Drops the pool's warning for each failed attempt to reconnect: the store reports
    an outage once, when it begins and when it ends."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("error connecting in")


_POOL_FILTER: Final = _OneLinePerOutage()


def _quiet_pool_log() -> None:
    pool_log = logging.getLogger("psycopg.pool")
    if _POOL_FILTER not in pool_log.filters:
        pool_log.addFilter(_POOL_FILTER)


def _announce(db: psycopg.Connection[Any], ask_id: str) -> None:
    """Tell every listening server that ``ask_id`` changed (delivered at COMMIT)."""
    db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, ask_id))


def _add(
    db: psycopg.Connection[Any], ask: StoredAsk, retain: float
) -> tuple[StoredAsk, bool] | KeyConflict:
    """One ask of :meth:`PostgresStore.add_many`, inside its transaction (its key locked)."""
    if ask.key is not None:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM asks WHERE key = %s AND state = ANY(%s) "
            "AND (state = 'pending' OR settled >= %s) ORDER BY created DESC LIMIT 1",
            (ask.key, list(_HOLDS_KEY), ask.created - retain),
        ).fetchone()
        if row is not None:
            held = _ask(row)
            if held.request.get("questions") != ask.request.get("questions"):
                return KeyConflict(
                    f"key {ask.key!r} already names ask {held.id} with other questions"
                )
            if held.state == "pending":
                deadline = _later(held.deadline, ask.deadline)
                if deadline != held.deadline:
                    db.execute("UPDATE asks SET deadline = %s WHERE id = %s", (deadline, held.id))
                    _announce(db, held.id)
                    held = attrs.evolve(held, deadline=deadline)
            return held, True
    db.execute(
        f"INSERT INTO asks ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, "
        "NULL, NULL, NULL, NULL)",
        (
            ask.id,
            Jsonb(ask.request),
            ask.agent,
            ask.key,
            ask.created,
            ask.deadline,
            ask.state,
        ),
    )
    _announce(db, ask.id)
    return ask, False


def _ask(row: tuple[Any, ...]) -> StoredAsk:
    (ask_id, request, agent, key, created, deadline, state, answer, error, by, settled) = row
    return StoredAsk(
        id=ask_id,
        request=request,
        agent=agent,
        key=key,
        created=created,
        deadline=deadline,
        state=state,
        answer=answer,
        error=error,
        settled_by=by,
        settled=settled,
    )


def _safe(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unreadable postgresql:// URL)"
    host, port, user = (str(info.get(name, "")) for name in ("host", "port", "user"))
    where = f"{host}:{port}" if port else host
    return f"postgresql://{user + '@' if user else ''}{where}/{info.get('dbname', '')}"
