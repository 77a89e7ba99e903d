"""Keep an MCP stdio server's protocol channel apart from the human's terminal.

stdin and stdout carry JSON-RPC, so nothing else may read or write them. Before any
provider is chosen, the protocol moves to private descriptors and file descriptors 0 and
1 are pointed at the controlling terminal (``/dev/tty``): terminal providers then talk
to the human there, and the providers' availability checks see a terminal. Without one,
fd 0 reads the null device and fd 1 writes to stderr, so a stray ``print`` never
corrupts a frame.
"""

from __future__ import annotations

import io
import os
import sys
from typing import BinaryIO, Final

__all__ = ["TERMINAL_PROVIDERS", "Channel", "claim_stdio"]

#: Providers that need a terminal: without ``/dev/tty`` they are refused at start.
TERMINAL_PROVIDERS: Final = frozenset({"stdio", "tui"})
_TTY: Final = "/dev/tty"


class Channel:
    """The protocol's byte streams, and whether the process has a terminal."""

    __slots__ = ("read", "terminal", "write")

    def __init__(self, read: BinaryIO, write: BinaryIO, terminal: bool) -> None:
        self.read = read
        self.write = write
        self.terminal = terminal


def claim_stdio() -> Channel:
    """Move the protocol off fds 0 and 1 and point them at the terminal (see above)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    wire_in, wire_out = _private(0), _private(1)
    try:
        tty = os.open(_TTY, os.O_RDWR)
    except OSError:  # no controlling terminal (ENXIO), or no such device
        tty = None
    if tty is not None:
        os.dup2(tty, 0)
        os.dup2(tty, 1)
        os.close(tty)
        if isinstance(sys.stdout, io.TextIOWrapper):  # it was a pipe: show prompts at once
            sys.stdout.reconfigure(line_buffering=True)
    else:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    # closefd=False: a worker thread may still block reading when the server ends.
    read = os.fdopen(wire_in, "rb", closefd=False)
    write = os.fdopen(wire_out, "wb", closefd=False)
    return Channel(read, write, tty is not None)


def _private(fd: int) -> int:
    """A duplicate of ``fd`` above the standard range, not inherited by children."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return os.dup(fd)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
