"""Watching source files for ``user-interaction dev``: watchfiles when installed, else polling.

A :class:`Watcher` calls ``on_change(paths)`` on a thread of its own with the changed
files, sorted. Directories are watched recursively; byte-code, ``__pycache__``, hidden
files and the temporary files of editors and tools (see :func:`ignored`) are ignored, by
either backend. A watched file is watched through its directory, so
an editor that saves by renaming a new file over the old one is still seen.
"""

from __future__ import annotations

import importlib
import os
import re
import threading
import traceback
from pathlib import Path
from typing import Callable, Final, Iterable

from user_interaction._threads import start_thread

__all__ = ["Watcher", "have_watchfiles", "ignored"]

OnChange = Callable[[list[str]], None]
Snapshot = dict[str, tuple[int, int]]

_IGNORED_DIRS: Final = frozenset({"__pycache__", "node_modules", "site-packages"})
_IGNORED: Final = re.compile(
    r"""
      [.\#].*                    # hidden (vim's .x.swp, emacs's .#x lock), emacs's #x#
    | .*(?:~|\.sw[a-px]|\.tmp|\.py[co])  # backups, vim's swap files, *.tmp, byte-code
    | sed[A-Za-z0-9]{6}          # sed -i writes sedXXXXXX, then renames it over the file
    | [0-9]+                     # vim's check that it may write in the folder: 4913
    | .*___jb_(?:tmp|old)___     # JetBrains' safe write
    """,
    re.VERBOSE,
)
_READY_TIMEOUT: Final = 10.0


def have_watchfiles() -> bool:
    """Whether the optional watchfiles library can be imported."""
    try:
        importlib.import_module("watchfiles")
    except ImportError:
        return False
    return True


def ignored(name: str) -> bool:
    """Whether a file of this name is an editor's or a tool's temporary file (or
    byte-code), never worth a reload: ``.x.swp``, ``x~``, ``.#x``, ``#x#``, ``4913``,
    ``x.tmp``, sed's ``sedCbVrci``."""
    return _IGNORED.fullmatch(name) is not None


class Watcher:
    """Watches ``paths`` (files or directories, which must exist) for changes."""

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        on_change: OnChange,
        *,
        backend: str = "auto",
        poll_interval: float = 0.5,
    ) -> None:
        self.paths = sorted({Path(path).resolve() for path in paths})
        for path in self.paths:
            if not path.exists():
                raise FileNotFoundError(f"cannot watch {str(path)!r}: no such file or directory")
        if backend == "auto":
            backend = "watchfiles" if have_watchfiles() else "poll"
        if backend not in ("watchfiles", "poll"):
            raise ValueError(f"unknown watcher {backend!r}")
        self.backend = backend
        self._on_change = on_change
        self._interval = poll_interval
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._files = {str(path) for path in self.paths if not path.is_dir()}
        self._dirs = [path for path in self.paths if path.is_dir()]

    def start(self) -> None:
        """Start watching; returns once changes from now on are seen."""
        if self.backend == "poll":
            run: Callable[[], None] = self._poll
            self._snapshot = self._take_snapshot()
        else:
            run = self._watchfiles
        self._thread = threading.Thread(target=run, name="user-interaction-watch", daemon=True)
        start_thread(self._thread)
        self._ready.wait(_READY_TIMEOUT)

    def stop(self) -> None:
        """Stop watching (waits briefly for the thread)."""
        self._stop.set()
        thread = self._thread
        if (
            thread is not None
            and thread.ident is not None
            and thread is not threading.current_thread()
        ):
            thread.join(2.0)  # ident None: a Ctrl-C came before it started

    def describe(self) -> str:
        names = ", ".join(str(path) for path in self.paths) or "nothing"
        how = "watchfiles" if self.backend == "watchfiles" else f"polling every {self._interval}s"
        return f"watching {names} ({how})"

    def _notify(self, changed: list[str]) -> None:
        """Call ``on_change``; whatever it raises is reported, and the watch goes on (an
        ended watch would miss the edit that fixes things)."""
        try:
            self._on_change(changed)
        except BaseException:  # SystemExit too: it would end this thread silently
            traceback.print_exc()

    # -- polling --------------------------------------------------------------------------

    def _take_snapshot(self) -> Snapshot:
        snapshot: Snapshot = {}
        for name in self._files:
            _stat_into(snapshot, name)
        for root in self._dirs:
            for directory, subdirs, files in os.walk(root):
                subdirs[:] = [d for d in subdirs if d not in _IGNORED_DIRS and not ignored(d)]
                for file in files:
                    if not ignored(file):
                        _stat_into(snapshot, os.path.join(directory, file))
        return snapshot

    def _poll(self) -> None:
        self._ready.set()
        while not self._stop.wait(self._interval):
            snapshot = self._take_snapshot()
            old = self._snapshot
            changed = sorted(
                name for name in old.keys() | snapshot.keys() if old.get(name) != snapshot.get(name)
            )
            self._snapshot = snapshot
            if changed:
                self._notify(changed)

    # -- watchfiles -----------------------------------------------------------------------

    def _watchfiles(self) -> None:
        import watchfiles  # the optional dev extra: only when have_watchfiles()

        default_filter = watchfiles.DefaultFilter()
        files = self._files
        dirs = [str(path) for path in self._dirs]

        def wanted(change: watchfiles.Change, path: str) -> bool:
            if path in files:
                return True
            if ignored(os.path.basename(path)):
                return False
            inside = any(path == d or path.startswith(d + os.sep) for d in dirs)
            return inside and bool(default_filter(change, path))

        roots = sorted({str(Path(name).parent) for name in files} | set(dirs))
        try:
            for changes in watchfiles.watch(
                *roots,
                watch_filter=wanted,
                stop_event=self._stop,
                rust_timeout=200,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                self._ready.set()  # the first (empty) yield: the watch is in place
                if changes:
                    self._notify(sorted({path for _, path in changes}))
        finally:
            self._ready.set()


def _stat_into(snapshot: Snapshot, name: str) -> None:
    try:
        status = os.stat(name)
    except OSError:
        return
    snapshot[name] = (status.st_mtime_ns, status.st_size)
