"""Where the inbox keeps its asks: one small interface, :class:`Store`, and its SQLite
implementation (a file in the state directory). A store for several servers (Postgres)
implements the same interface.

Every method commits before it returns, so a state change the server acknowledged
survives a SIGKILL of the server right after. The methods block: the server calls them on
worker threads (``asyncio.to_thread``); only :meth:`Store.watch`, which follows the changes
other servers make to a shared store, is a coroutine.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, Literal, Protocol

import attrs

from user_interaction import state_dir
from user_interaction.extensions import Decision

__all__ = [
    "SCHEMA_VERSION",
    "STATES",
    "KeyConflict",
    "SqliteStore",
    "State",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredAsk",
    "default_store_url",
    "open_store",
    "shown_url",
]

State = Literal["pending", "answered", "cancelled", "declined", "expired", "withdrawn"]
#: Every state an ask can be in; all but ``pending`` are final.
STATES: Final[tuple[State, ...]] = (
    "pending",
    "answered",
    "cancelled",
    "declined",
    "expired",
    "withdrawn",
)
#: The states in which an ask holds its key: the human settled it. An expired or withdrawn
#: ask releases its key (asking again asks again).
_HOLDS_KEY: Final = ("pending", "answered", "cancelled", "declined")


class StoreError(Exception):
    """The store cannot be opened or used (a bad URL, a newer schema, an unreadable file)."""


class StoreUnavailable(StoreError):
    """The store cannot be reached now (its database is restarting, or the network is
    down); the server answers 503 and agents try again."""


class KeyConflict(Exception):
    """A key already names an ask with other questions."""


@attrs.frozen
class StoredAsk:
    """One ask as the store keeps it. Times are Unix seconds (wall clock: they outlive the
    process); ``request`` is the request's wire form, key included."""

    id: str
    request: dict[str, Any]
    agent: str
    key: str | None
    created: float
    deadline: float | None
    state: State = "pending"
    answer: dict[str, Any] | None = None
    #: ``{"code": ..., "message": ...}`` for an ask that ended without an answer.
    error: dict[str, str] | None = None
    settled_by: str | None = None
    settled: float | None = None


class Store(Protocol):
    """What the inbox server needs of a store."""

    @property
    def shared(self) -> bool:
        """Whether several servers may use this store at once (each then hears of the
        others' changes through :meth:`watch`)."""

    def add(self, ask: StoredAsk, retain: float) -> tuple[StoredAsk, bool]:
        """Store a new pending ask, or, when its key holds an ask (pending, or settled by
        the human less than ``retain`` seconds ago), return that one instead: ``(ask,
        joined)``. Joining a pending ask moves its deadline to the later of the two (none
        when either has none). :class:`KeyConflict` when the held ask has other questions."""

    def add_many(
        self, asks: Sequence[StoredAsk], retain: float
    ) -> list[tuple[StoredAsk, bool] | KeyConflict]:
        """:meth:`add` for several asks in one transaction (one commit, one ``fsync``: the
        server groups the asks that arrive while the previous commit runs); each result
        in order, a :class:`KeyConflict` in place of the ask it refuses."""

    def get(self, ask_id: str) -> StoredAsk | None:
        """The ask with that id, whatever its state."""

    def pending(self) -> list[StoredAsk]:
        """Every pending ask, oldest first."""

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
        """Move a pending ask to ``state``; ``False`` when it was not pending (someone
        else settled it first)."""

    def purge(self, before: float) -> int:
        """Forget asks settled before ``before``; how many."""

    def decision(self, name: str) -> Decision | None:
        """The approval decision remembered for ``name`` ("Always allow" or "Always
        deny"), if any."""

    def decide(self, name: str, allowed: bool, *, at: float | None = None) -> Decision:
        """Remember ``allowed`` for ``name`` (replacing what was remembered), decided
        ``at`` (now by default)."""

    def forget_decisions(self, name: str | None = None) -> int:
        """Forget the decision for ``name`` (every one when ``None``); how many."""

    def unnotified(self) -> list[StoredAsk]:
        """The pending asks never marked notified (:meth:`mark_notified`), oldest first:
        what a server starting sends, so an ask in flight when one stopped is sent again."""

    def mark_notified(self, ask_id: str, at: float) -> None:
        """Remember that the notification services accepted the ask's message at ``at``."""

    def decisions(self) -> list[Decision]:
        """Every remembered decision, by name."""

    async def watch(self, changed: Callable[[str | None], Awaitable[None]]) -> None:
        """Report changes: await ``changed(None)`` once the store is followed (and again
        whenever changes may have been missed: read every pending ask again), then
        ``changed(ask_id)`` for each change to an ask made by any server, until cancelled.
        A store that no other server writes reports ``changed(None)`` once and returns."""

    def close(self) -> None:
        """Release the store."""


#: The schema's migrations, in order: ``_MIGRATIONS[n]`` takes version ``n`` to ``n + 1``.
#: Append, never edit: a file written by an older version is migrated forward on open.
_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE asks (
            id TEXT PRIMARY KEY,
            request TEXT NOT NULL,
            agent TEXT NOT NULL,
            key TEXT,
            created REAL NOT NULL,
            deadline REAL,
            state TEXT NOT NULL CHECK (state IN
                ('pending', 'answered', 'cancelled', 'declined', 'expired', 'withdrawn')),
            answer TEXT,
            error TEXT,
            settled_by TEXT,
            settled REAL
        )""",
        "CREATE INDEX asks_by_key ON asks (key) WHERE key IS NOT NULL",
        "CREATE INDEX asks_by_state ON asks (state, created)",
    ),
    # 1 -> 2: the approvals remembered as "Always allow" / "Always deny", so that agents
    # on other machines sharing this inbox follow the same rule.
    (
        """CREATE TABLE decisions (
            name TEXT PRIMARY KEY,
            allowed INTEGER NOT NULL CHECK (allowed IN (0, 1)),
            decided REAL NOT NULL
        )""",
    ),
    # 2 -> 3: when the notification of a new ask was accepted (NULL until then), so that
    # a restarted server, or another on the same store, never sends it again.
    ("ALTER TABLE asks ADD COLUMN notified_at REAL",),
)
#: The schema version this code writes.
SCHEMA_VERSION: Final = len(_MIGRATIONS)
_BUSY_TIMEOUT_MS: Final = 30_000
_COLUMNS: Final = (
    "id, request, agent, key, created, deadline, state, answer, error, settled_by, settled"
)


def shown_url(url: str) -> str:
    """``url`` as messages and logs show it: without its password."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    where = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username or ''}@{where}"))


def default_store_url() -> str:
    """``sqlite:///`` and the state directory's ``inbox.sqlite3``."""
    return f"sqlite://{(state_dir() / 'inbox.sqlite3').absolute()}"


def open_store(url: str | None = None) -> Store:
    """The store ``url`` names (default: :func:`default_store_url`). ``sqlite:///PATH``
    is an SQLite file at ``PATH`` (``sqlite:////abs`` and ``sqlite:///abs`` alike);
    ``postgresql://…`` (or ``postgres://…``, a libpq URL) a PostgreSQL database that
    several servers may share (the ``postgres`` extra: psycopg 3)."""
    url = url or default_store_url()
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise StoreError(f"{url!r} is not a store URL (expected sqlite:///PATH)")
    if scheme == "sqlite":
        rest, _, query = rest.partition("?")
        if not rest.startswith("/") or rest == "/":
            raise StoreError(f"{url!r}: expected sqlite:///PATH, an absolute path")
        options = urllib.parse.parse_qs(query, keep_blank_values=True)
        synchronous = options.pop("synchronous", ["FULL"])[-1].upper()
        if options or synchronous not in ("FULL", "NORMAL"):
            raise StoreError(f"{url!r}: the only option is synchronous=FULL (default) or NORMAL")
        return SqliteStore(Path(rest), synchronous="FULL" if synchronous == "FULL" else "NORMAL")
    if scheme in ("postgres", "postgresql"):
        try:
            from ._postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(
                f"{scheme}:// stores need psycopg 3 and its pool ({exc}): "
                "pip install 'user-interaction-inbox[postgres]'"
            ) from exc
        return PostgresStore(url)
    raise StoreError(f"{url!r}: unknown store scheme {scheme!r} (expected sqlite or postgresql)")


class SqliteStore:
    """The asks in one SQLite file (WAL, ``synchronous=FULL`` unless told ``NORMAL``: then a
    power cut, never a killed process, may lose the last changes): every change is an explicit
    ``BEGIN IMMEDIATE … COMMIT`` (writers from several processes wait on the busy timeout
    instead of failing), and the file is created private to the user (0600, in a 0700
    directory when this creates it)."""

    #: One server per file: nothing else to hear of.
    shared: Final = False

    def __init__(self, path: Path, *, synchronous: Literal["FULL", "NORMAL"] = "FULL") -> None:
        self.path = path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            # isolation_level=None: no implicit transactions, so nothing waits for a
            # commit() that a killed process never makes.
            self._db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the store {path}: {exc}") from exc
        self._lock = threading.Lock()
        try:
            self._db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._migrate()
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"cannot use the store {path}: {exc}") from exc
        except StoreError:
            self._db.close()
            raise

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if row is None:
                db.execute("INSERT INTO schema_version (version) VALUES (0)")
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the store {self.path} has schema version {version}, newer than this "
                    f"user-interaction-inbox knows ({SCHEMA_VERSION}): upgrade it, or use "
                    "another --store"
                )
            for statements in _MIGRATIONS[version:]:
                for statement in statements:
                    db.execute(statement)
            db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def add(self, ask: StoredAsk, retain: float) -> tuple[StoredAsk, bool]:
        (result,) = self.add_many([ask], retain)
        if isinstance(result, KeyConflict):
            raise result
        return result

    def add_many(
        self, asks: Sequence[StoredAsk], retain: float
    ) -> list[tuple[StoredAsk, bool] | KeyConflict]:
        with self._write() as db:
            return [_add(db, ask, retain) for ask in asks]

    def get(self, ask_id: str) -> StoredAsk | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM asks WHERE id = ?", (ask_id,)
            ).fetchone()
        return None if row is None else _ask(row)

    def pending(self) -> list[StoredAsk]:
        with self._lock:
            rows = self._db.execute(
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
        with self._write() as db:
            cursor = db.execute(
                "UPDATE asks SET state = ?, answer = ?, error = ?, settled_by = ?, settled = ? "
                "WHERE id = ? AND state = 'pending'",
                (
                    state,
                    None if answer is None else json.dumps(answer),
                    None if error is None else json.dumps(error),
                    by,
                    at,
                    ask_id,
                ),
            )
            return cursor.rowcount == 1  # the first to settle wins; the others change nothing

    def purge(self, before: float) -> int:
        with self._write() as db:
            cursor = db.execute(
                "DELETE FROM asks WHERE state != 'pending' AND settled < ?", (before,)
            )
            return cursor.rowcount

    def decision(self, name: str) -> Decision | None:
        with self._lock:
            row = self._db.execute(
                "SELECT name, allowed, decided FROM decisions WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else Decision(row[0], bool(row[1]), row[2])

    def decide(self, name: str, allowed: bool, *, at: float | None = None) -> Decision:
        decision = Decision(name, allowed, time.time() if at is None else at)
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO decisions (name, allowed, decided) VALUES (?, ?, ?)",
                (name, int(allowed), decision.decided),
            )
        return decision

    def forget_decisions(self, name: str | None = None) -> int:
        with self._write() as db:
            if name is None:
                return db.execute("DELETE FROM decisions").rowcount
            return db.execute("DELETE FROM decisions WHERE name = ?", (name,)).rowcount

    def unnotified(self) -> list[StoredAsk]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM asks WHERE state = 'pending' AND notified_at IS NULL "
                "ORDER BY created, id"
            ).fetchall()
        return [_ask(row) for row in rows]

    def mark_notified(self, ask_id: str, at: float) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE asks SET notified_at = ? WHERE id = ? AND notified_at IS NULL",
                (at, ask_id),
            )

    def decisions(self) -> list[Decision]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, allowed, decided FROM decisions ORDER BY name"
            ).fetchall()
        return [Decision(name, bool(allowed), decided) for name, allowed, decided in rows]

    async def watch(self, changed: Callable[[str | None], Awaitable[None]]) -> None:
        await changed(None)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _add(
    db: sqlite3.Connection, ask: StoredAsk, retain: float
) -> tuple[StoredAsk, bool] | KeyConflict:
    """One ask of :meth:`SqliteStore.add_many`, inside its transaction."""
    if ask.key is not None:
        held = _held(db, ask.key, ask.created - retain)
        if held is not None:
            if held.request.get("questions") != ask.request.get("questions"):
                return KeyConflict(
                    f"key {ask.key!r} already names ask {held.id} with other questions"
                )
            if held.state == "pending":
                deadline = _later(held.deadline, ask.deadline)
                if deadline != held.deadline:
                    db.execute("UPDATE asks SET deadline = ? WHERE id = ?", (deadline, held.id))
                    held = attrs.evolve(held, deadline=deadline)
            return held, True
    db.execute(
        f"INSERT INTO asks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL)",
        (ask.id, json.dumps(ask.request), ask.agent, ask.key, ask.created, ask.deadline, ask.state),
    )
    return ask, False


def _held(db: sqlite3.Connection, key: str, since: float) -> StoredAsk | None:
    """The ask holding ``key``: pending, or settled by the human after ``since``."""
    marks = ", ".join("?" * len(_HOLDS_KEY))
    row = db.execute(
        f"SELECT {_COLUMNS} FROM asks WHERE key = ? AND state IN ({marks}) "
        "AND (state = 'pending' OR settled >= ?) ORDER BY created DESC LIMIT 1",
        (key, *_HOLDS_KEY, since),
    ).fetchone()
    return None if row is None else _ask(row)


def _later(first: float | None, second: float | None) -> float | None:
    """The later of two deadlines, ``None`` (no deadline) being the latest."""
    if first is None or second is None:
        return None
    return max(first, second)


def _ask(row: tuple[Any, ...]) -> StoredAsk:
    (ask_id, request, agent, key, created, deadline, state, answer, error, by, settled) = row
    return StoredAsk(
        id=ask_id,
        request=json.loads(request),
        agent=agent,
        key=key,
        created=created,
        deadline=deadline,
        state=state,
        answer=None if answer is None else json.loads(answer),
        error=None if error is None else json.loads(error),
        settled_by=by,
        settled=settled,
    )
