"""The input side: one shared line reader, and one turn queue, per input stream.

Every :class:`~user_interaction_stdio.StdioProvider` reading the same stream shares one
:class:`Console`. Its daemon thread reads a line only while somebody waits for one and
hands it to the waiter's event loop with ``call_soon_threadsafe``; the event loop itself
never blocks on input. A line is never lost: one that arrives after its waiter gave up (an
abort) is kept for the next waiter.

How the thread reads depends on the stream:

* **editing** — the process's stdin and stdout are terminals: ``input()``, with the
  :mod:`readline` module loaded when available, so arrows and history work. A read in
  progress cannot be interrupted; after an abort it stays open and its line goes to the
  next waiter.
* **descriptor** — any other stream with a file descriptor, on POSIX: ``poll``/``select``
  on the descriptor and a wake-up pipe, then reads of whole blocks (a 20 MB pasted line is
  a few hundred reads, not twenty million), so a withdrawn read stops at once. What was
  read past the line asked for stays buffered for the next line, and is given back to a
  seekable file when the last user lets go. The stream's own Python-level buffer is
  bypassed.

Typeahead: on a terminal, :meth:`Console.discard_typeahead` (called before each question
is shown) forgets what was typed while no question was on screen — lines kept after an
abort, a partial line, the terminal's unread input — so it never answers the next
question. On a pipe or a file every line stays, in order: they are a script's answers.
* **stream** — anything else (``io.StringIO``, Windows): ``stream.readline()``, which,
  like the editing mode, cannot be interrupted.

The turn queue makes sure only one ask at a time shows questions on a stream, in arrival
order, whatever event loop each ask runs on.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Final, Optional, TextIO, Union

if TYPE_CHECKING:
    import asyncio

__all__ = ["Console", "Line", "Turns", "claim", "release"]

Line = Optional[str]
"""A line without its line break, or ``None`` at the end of input. On a terminal, end of
input (Ctrl-D at the prompt) ends only the read in progress, and :attr:`Console.eof`
stays false: it is the human dismissing the question, and the terminal stays usable."""

EDITING: Final = "editing"
DESCRIPTOR: Final = "descriptor"
STREAM: Final = "stream"

_JOIN_TIMEOUT: Final = 5.0
_BLOCK: Final = 1 << 16  # bytes per read of a descriptor
_USE_POLL: Final = hasattr(select, "poll") and sys.platform != "darwin"  # macOS: no ttys


class _Withdrawn:
    """What a descriptor read returns when nobody waits for its line any more."""


_WITHDRAWN: Final = _Withdrawn()


def isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


class Turns:
    """A first-come, first-served lock whose waiters may sit on different event loops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = False
        self._queue: deque[asyncio.Future[None]] = deque()

    def request(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
        """A future that completes when the caller holds the turn (at once if free)."""
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._busy:
                self._queue.append(future)
                return future
            self._busy = True
        future.set_result(None)
        return future

    def abandon(self, future: asyncio.Future[None]) -> None:
        """Give up a requested turn, held or not (on the future's loop)."""
        with self._lock:
            try:
                self._queue.remove(future)
                return
            except ValueError:
                pass
        if future.done() and not future.cancelled():
            self.release()
        else:  # granted, but the grant has not arrived yet: _grant passes the turn on
            future.cancel()

    def release(self) -> None:
        """End the current turn and hand the next one out."""
        with self._lock:
            if not self._queue:
                self._busy = False
                return
            future = self._queue.popleft()
        try:
            future.get_loop().call_soon_threadsafe(self._grant, future)
        except RuntimeError:  # that waiter's loop is closed: pass the turn on
            self.release()

    def _grant(self, future: asyncio.Future[None]) -> None:
        if future.done():
            self.release()
        else:
            future.set_result(None)


class Console:
    """Reads lines from one input stream on behalf of every provider that uses it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.turns = Turns()
        #: Whether the reader shows typed text itself (a terminal echoes it).
        self.echoes = isatty(stream)
        #: Set at the end of input (for good: later reads return ``None`` at once).
        self.eof = False
        #: The error that ended the input, if it was not a plain end of file.
        self.failure: BaseException | None = None
        self.mode, self._fd = _choose_mode(stream)
        self._encoding = getattr(stream, "encoding", None) or "utf-8"
        self._cond = threading.Condition()
        self._users = 0
        self._stopping = False
        self._thread: threading.Thread | None = None  # the last one started, for join()
        self._running = False  # whether that thread still serves reads
        self._reading = False
        self._waiter: asyncio.Future[Line] | None = None
        self._prompt: str | None = None
        self._lines: deque[str] = deque()
        self._pending = bytearray()  # read from the descriptor, not yet handed out as lines
        self._scanned = 0  # how much of _pending is known to hold no line break
        self._discard = False  # drop _pending before the next read (typeahead on a terminal)
        self._stale: str | None = None  # what input() had already read at a discard
        self._at_end = False
        self._wake_r = self._wake_w = -1
        self._tty_state: list[Any] | None = None  # terminal settings before input() began

    # -- the event loop side -------------------------------------------------------------

    def read_line(
        self, loop: asyncio.AbstractEventLoop, prompt: str
    ) -> tuple[asyncio.Future[Line], bool]:
        """Ask for the next line; returns its future and whether the prompt is taken care
        of (shown by ``input()``, or not needed at the end of input)."""
        future: asyncio.Future[Line] = loop.create_future()
        with self._cond:
            if self._lines:
                future.set_result(self._lines.popleft())
                return future, False
            if self.eof:
                future.set_result(None)
                return future, True
            if self._waiter is not None:
                raise RuntimeError("two reads at once on one input stream")
            self._waiter = future
            prompted = self.mode == EDITING and not self._reading
            self._prompt = prompt if prompted else None
            self._start_locked()
            self._cond.notify_all()
        return future, prompted

    def discard_typeahead(self) -> None:
        """On a terminal, forget what was typed while no question was on screen: lines
        kept after an abort, a partial line, and the terminal's unread input. Called right
        before a question is shown. On a pipe or a file nothing is dropped: its lines are
        a script's answers, in order."""
        if not self.echoes:
            return
        with self._cond:
            self._lines.clear()
            self._discard = True  # the reader drops its partial line before it reads on
            if self.mode == EDITING and self._reading:  # input() has the start of a line
                self._stale = _line_buffer()
        _flush_input(self._fd if self.mode == DESCRIPTOR else _fileno(self.stream))

    def withdraw(self, future: asyncio.Future[Line]) -> None:
        """Stop waiting for ``future``'s line (on its loop); a line it got is kept."""
        with self._cond:
            if self._waiter is future:
                self._waiter = None
                self._prompt = None
                if self._reading:
                    self._wake_locked()
                return
        if not future.done():
            future.cancel()  # a line is on its way: _hand_over keeps it
        elif not future.cancelled():
            line = future.result()
            if line is not None:
                with self._cond:
                    self._deliver_locked(line, front=True)

    def _hand_over(self, waiter: asyncio.Future[Line], line: Line) -> None:
        if not waiter.done():
            waiter.set_result(line)
        elif line is not None:
            with self._cond:
                self._deliver_locked(line, front=True)

    # -- shared state (under the condition's lock) ---------------------------------------

    def _deliver_locked(self, line: Line, *, front: bool = False) -> None:
        waiter = self._waiter
        if waiter is None:
            if line is not None:
                if front:
                    self._lines.appendleft(line)
                else:
                    self._lines.append(line)
            return
        self._waiter = None
        self._prompt = None
        if self._reading:  # a read for this waiter is still in progress: withdraw it
            self._wake_locked()
        try:
            waiter.get_loop().call_soon_threadsafe(self._hand_over, waiter, line)
        except RuntimeError:  # the waiter's loop is closed; keep the line
            if line is not None:
                self._lines.appendleft(line)

    def _start_locked(self) -> None:
        if self._running:
            return
        if self.mode == DESCRIPTOR:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)
        thread = threading.Thread(target=self._run, name="user-interaction-stdio", daemon=True)
        self._thread = thread
        self._running = True
        thread.start()

    def _wake_locked(self) -> None:
        if self._wake_w >= 0:
            try:
                os.write(self._wake_w, b"!")
            except OSError:  # full (a wake-up is pending anyway) or closed
                pass

    def _exit_locked(self) -> None:
        self._running = False
        if self._pending and self._stopping:
            try:  # a file: leave its position right after the last line handed out
                os.lseek(self._fd, -len(self._pending), os.SEEK_CUR)
            except OSError:  # a pipe or a terminal: keep the bytes for the next user
                pass
            else:
                self._pending.clear()
                self._scanned = 0
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1

    # -- the reader thread ---------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._waiter is None and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    self._exit_locked()
                    break
                prompt, self._prompt = self._prompt, None
                if self._discard:
                    self._discard = False
                    self._pending.clear()
                    self._scanned = 0
                self._reading = True
            line: Union[Line, _Withdrawn]
            try:
                line = self._read(prompt)
            except Exception as exc:  # the input is unusable: that is its end
                self.failure = exc
                line = None
            with self._cond:
                if line is None and (self.failure is not None or not self.echoes):
                    self.eof = True  # for good: a pipe or a file has ended, or the input failed
                self._reading = False
                stale, self._stale = self._stale, None
                if stale and isinstance(line, str) and line.startswith(stale):
                    line = line[len(stale) :]  # typed before the question now shown
                if isinstance(line, _Withdrawn):
                    continue
                self._deliver_locked(line)
                if self.eof:
                    self._exit_locked()
                    break
                if line is None:  # Ctrl-D at a terminal ends this read only: the human
                    self._at_end = False  # dismissed one question; the terminal stays
        _forget(self)

    def _read(self, prompt: str | None) -> Union[Line, _Withdrawn]:
        if self.mode == EDITING:
            self._tty_state = _terminal_state()
            try:
                return input(prompt or "")
            except EOFError:
                return None
            finally:
                self._tty_state = None
        if self.mode == DESCRIPTOR:
            return self._read_descriptor()
        text = self.stream.readline()
        return text.rstrip("\r\n") if text else None

    def _read_descriptor(self) -> Union[Line, _Withdrawn]:
        fd, wake = self._fd, self._wake_r
        pending = self._pending
        poller = None
        if _USE_POLL:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            poller.register(wake, select.POLLIN)
        while True:
            end = pending.find(b"\n", self._scanned)
            if end >= 0:
                line = self._decode(pending[:end])
                del pending[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(pending)
            if self._at_end:
                if not pending:
                    return None
                line = self._decode(pending)
                pending.clear()
                self._scanned = 0
                return line
            if poller is not None:
                ready = {ready_fd for ready_fd, _ in poller.poll()}
            else:
                ready = set(select.select([fd, wake], [], [])[0])
            if wake in ready:
                try:
                    os.read(wake, 512)
                except BlockingIOError:
                    pass
                with self._cond:
                    if self._waiter is None or self._stopping:
                        return _WITHDRAWN
            if fd in ready:
                try:
                    block = os.read(fd, _BLOCK)
                except BlockingIOError:  # someone else took it (a non-blocking stdin)
                    continue
                if block:
                    pending += block
                else:
                    self._at_end = True

    def _decode(self, data: bytes | bytearray) -> str:
        # surrogateescape, as Python reads a terminal: bytes the encoding cannot read stay
        # visible (as U+DC80-U+DCFF) for the provider to refuse, never silently replaced.
        return bytes(data).decode(self._encoding, "surrogateescape").rstrip("\r")


def _choose_mode(stream: TextIO) -> tuple[str, int]:
    if stream is sys.stdin and isatty(stream) and isatty(sys.stdout):
        try:
            import readline  # noqa: F401 -- gives input() line editing and history
        except ImportError:
            pass
        _restore_terminal_at_exit()
        return EDITING, -1
    if os.name == "posix":
        try:
            return DESCRIPTOR, stream.fileno()
        except (AttributeError, OSError, ValueError):
            pass
    return STREAM, -1


def _fileno(stream: object) -> int:
    try:
        return int(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return -1


def _flush_input(fd: int) -> None:
    """Drop what was typed on the terminal ``fd`` and not read yet."""
    if fd < 0:
        return
    try:
        import termios

        try:
            termios.tcflush(fd, termios.TCIFLUSH)
        except (termios.error, OSError, ValueError):  # not a terminal (any more)
            pass
    except ImportError:  # Windows
        pass


def _line_buffer() -> str | None:
    """What ``input()`` has read of the line it is still reading (readline only)."""
    readline = sys.modules.get("readline")
    try:
        return str(readline.get_line_buffer()) if readline is not None else None
    except Exception:  # an incomplete readline emulation
        return None


# -- the terminal: readline switches it to raw mode while it reads ------------------------------


def _terminal_state() -> list[Any] | None:
    try:
        import termios

        return termios.tcgetattr(sys.stdin.fileno())
    except (ImportError, AttributeError, OSError, ValueError):
        return None


_atexit_registered = False


def _restore_terminal_at_exit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        _atexit_registered = True
        import atexit

        atexit.register(_restore_terminal)


def _restore_terminal() -> None:
    """At exit, give the terminal back its settings if ``input()`` is still reading.

    The process may end (Ctrl-C, or simply after its last ask was aborted) while the
    reader thread is inside readline, which has put the terminal into raw mode; without
    this the shell would be left without echo.
    """
    with _REGISTRY_LOCK:
        states = [console._tty_state for console in _CONSOLES.values()]
    for state in states:
        if state is not None:
            try:
                import termios

                termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, state)
            except (ImportError, AttributeError, OSError, ValueError):
                pass


# -- the registry: one console per input stream ---------------------------------------------

_REGISTRY_LOCK: Final = threading.Lock()
_CONSOLES: Final[dict[int, Console]] = {}


def claim(stream: TextIO) -> Console:
    """The console of ``stream``, counted as used until :func:`release`."""
    with _REGISTRY_LOCK:
        console = _CONSOLES.get(id(stream))
        if console is None or console.stream is not stream:
            console = _CONSOLES[id(stream)] = Console(stream)
        with console._cond:
            console._users += 1
            console._stopping = False
    return console


def release(console: Console) -> None:
    """Stop using ``console``; its thread ends with its last user (joined when it can be:
    a read in progress that cannot be interrupted finishes first, keeping its line)."""
    with _REGISTRY_LOCK:
        with console._cond:
            console._users -= 1
            if console._users > 0:
                return
            console._stopping = True
            console._cond.notify_all()
            console._wake_locked()
            thread = console._thread
            joinable = console.mode == DESCRIPTOR or not console._reading
        _forget_locked(console)
    if joinable and thread is not None and thread is not threading.current_thread():
        thread.join(_JOIN_TIMEOUT)


def _forget(console: Console) -> None:
    with _REGISTRY_LOCK:
        _forget_locked(console)


def _forget_locked(console: Console) -> None:
    """Drop an unused console, unless it still holds something for a later user (a line
    typed after an abort, input read ahead, a read in progress, or the end of input)."""
    with console._cond:
        held = console._lines or console._pending or console.eof
        if console._users or console._running or held:
            return
    key = id(console.stream)
    if _CONSOLES.get(key) is console:
        del _CONSOLES[key]


def readable_stdin() -> bool:
    """Whether the process's stdin is a terminal or a pipe (a human or a script can type)."""
    import stat

    stream = sys.stdin
    if stream is None:
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # closed, or no descriptor at all
        return False
    return os.isatty(stream.fileno()) or stat.S_ISFIFO(mode)
