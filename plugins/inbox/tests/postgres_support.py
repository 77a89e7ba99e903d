"""A throwaway PostgreSQL cluster for the inbox's tests and benchmarks: ``initdb`` and
``pg_ctl`` from ``/usr/lib/postgresql/<major>/bin`` (Debian keeps the server binaries off
``PATH``), in a directory of its own owned by the ``postgres`` user when this runs as root
(``initdb`` refuses root), listening on loopback only."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["Cluster", "postgres_bin", "why_no_postgres"]


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's server binaries, if any."""
    found = sorted(
        (Path(path).parent for path in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


def why_no_postgres() -> str | None:
    """Why a cluster cannot be started here, or ``None`` when it can."""
    if postgres_bin() is None:
        return (
            "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin "
            "(apt-get install postgresql)"
        )
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e 'plugins/inbox[postgres]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user to run the cluster as"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Cluster:
    """One PostgreSQL cluster in a fresh temporary directory, on a free loopback port."""

    def __init__(self, *, durable: bool = False) -> None:
        """``durable``: keep ``fsync`` on (benchmarks); the tests turn it off."""
        binaries = postgres_bin()
        assert binaries is not None, why_no_postgres()
        self.bin = binaries
        self.directory = Path(tempfile.mkdtemp(prefix="ui-inbox-pg-"))
        self.data = self.directory / "data"
        self.log = self.directory / "server.log"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.directory, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run(
            "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip
        self.options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1" + (
            "" if durable else " -c fsync=off -c synchronous_commit=off"
        )
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args],
            check=True,
            capture_output=True,
            cwd=self.directory,
            timeout=120,
        )

    def _ctl(self, *args: str) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", *args)

    def start(self) -> None:
        self._ctl("-o", self.options, "start")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is dropped."""
        self._ctl("-o", self.options, "-m", "fast", "restart")

    def stop(self) -> None:
        self._ctl("-m", "fast", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            self._ctl("-m", "immediate", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)
