"""Remembered decisions: the approvals a human answered "Always allow" or "Always deny",
kept in an SQLite file so that every process of the user follows the same rule.

Every change is one ``BEGIN IMMEDIATE`` transaction on a connection with a busy timeout,
so processes writing at once wait for each other instead of failing or losing a write;
the file and its journal are private to the user (0600) and written in WAL mode with
``synchronous=FULL``.
"""

from __future__ import annotations

import os
import time
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Final, Protocol, Union

import attrs

from ._state import state_dir

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterator

__all__ = [
    "DECISIONS_ENV",
    "ActiveProviderDecisions",
    "Decision",
    "DecisionKeeper",
    "DecisionStore",
    "decisions_path",
    "provider_decisions",
]

#: A path: every context remembers approvals there (``RememberedDecisions``), and the
#: ``decisions`` commands manage that file.
DECISIONS_ENV: Final = "USER_INTERACTION_DECISIONS"
#: The schema this code writes; a file with a newer one is refused, never rewritten.
SCHEMA_VERSION: Final = 1
_BUSY_MS: Final = 10_000

PathLike = Union[str, "os.PathLike[str]"]


@attrs.frozen
class Decision:
    """One remembered decision."""

    #: What was approved, as the approval's ``remember`` named it (``"tool:deploy"``).
    name: str
    #: ``True`` for "Always allow", ``False`` for "Always deny".
    allowed: bool
    #: When the human decided (seconds since the epoch).
    decided: float

    def to_dict(self) -> dict[str, object]:
        """The JSON form ``decisions list --json`` prints."""
        return {
            "name": self.name,
            "decision": "allow" if self.allowed else "deny",
            "decided": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.decided)),
        }


def decisions_path() -> Path:
    """``USER_INTERACTION_DECISIONS`` if set, else ``decisions.sqlite3`` in the state
    directory."""
    chosen = os.environ.get(DECISIONS_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    return state_dir() / "decisions.sqlite3"


class DecisionKeeper(Protocol):
    """Where :class:`RememberedDecisions` keeps decisions: a :class:`DecisionStore`, or a
    provider's own (``decision_store()``, as the inbox offers)."""

    def get(self, name: str) -> Decision | None: ...

    def put(self, name: str, allowed: bool) -> object: ...


class DecisionStore:
    """The decisions file at ``path`` (created, private, on first use)."""

    def __init__(self, path: PathLike | None = None) -> None:
        #: The SQLite file.
        self.path = decisions_path() if path is None else Path(path)

    def __repr__(self) -> str:
        return f"<DecisionStore {str(self.path)!r}>"

    def get(self, name: str) -> Decision | None:
        """The decision remembered for ``name``, if any."""
        with self._connection() as db:
            row = db.execute(
                "SELECT name, allowed, decided FROM decisions WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else Decision(row[0], bool(row[1]), row[2])

    def put(self, name: str, allowed: bool) -> Decision:
        """Remember ``allowed`` for ``name`` (replacing what was remembered)."""
        decision = Decision(name, allowed, time.time())
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO decisions (name, allowed, decided) VALUES (?, ?, ?)",
                (name, int(allowed), decision.decided),
            )
        return decision

    def forget(self, name: str | None = None) -> int:
        """Forget ``name`` (every decision when ``None``); how many were forgotten."""
        with self._transaction() as db:
            if name is None:
                return db.execute("DELETE FROM decisions").rowcount
            return db.execute("DELETE FROM decisions WHERE name = ?", (name,)).rowcount

    def all(self) -> list[Decision]:
        """Every remembered decision, by name."""
        with self._connection() as db:
            rows = db.execute(
                "SELECT name, allowed, decided FROM decisions ORDER BY name"
            ).fetchall()
        return [Decision(name, bool(allowed), decided) for name, allowed, decided in rows]

    # -- the file --------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        path = self.path
        if not path.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))  # private from the start
        # isolation_level=None: transactions are ours (BEGIN IMMEDIATE), never implicit.
        import sqlite3  # here: a command that never opens the file need not load it

        with closing(sqlite3.connect(path, isolation_level=None, timeout=_BUSY_MS / 1000)) as db:
            db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
            db.execute("PRAGMA synchronous = FULL")
            self._prepare(db)
            yield db

    def _prepare(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path}: its schema version is {version}, newer than this "
                f"user-interaction knows ({SCHEMA_VERSION}); upgrade user-interaction"
            )
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # not by another process
                db.execute(
                    "CREATE TABLE IF NOT EXISTS decisions ("
                    "name TEXT PRIMARY KEY, allowed INTEGER NOT NULL, decided REAL NOT NULL)"
                )
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def provider_decisions(provider: object) -> DecisionKeeper | None:
    """The decision store a provider keeps (its ``decision_store()``: the inbox's), if any;
    a provider that asks others (``any``) offers its first child's."""
    offer = getattr(provider, "decision_store", None)
    if not callable(offer):
        return None
    store: DecisionKeeper | None = offer()
    return store


class ActiveProviderDecisions:
    """The decisions of whichever provider ``active()`` returns at each ask (the active
    one of a context): none while it keeps none (an approval is then asked, and nothing
    is remembered)."""

    def __init__(self, active: Callable[[], object | None]) -> None:
        self._active = active

    def __repr__(self) -> str:
        return "<the active provider's decisions>"

    def _store(self) -> DecisionKeeper | None:
        provider = self._active()
        return None if provider is None else provider_decisions(provider)

    def get(self, name: str) -> Decision | None:
        store = self._store()
        return None if store is None else store.get(name)

    def put(self, name: str, allowed: bool) -> object:
        store = self._store()
        return None if store is None else store.put(name, allowed)
