"""Helpers of the tui tests: a terminal screen (pyte) fed from a pseudo-terminal that
pexpect drives, in this process or around a child process."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Callable

import pexpect
import pyte

from user_interaction.testing import wire_question as question
from user_interaction.testing import wire_request as request
from user_interaction.testing.driver import read_reports, results

__all__ = [
    "DRIVER",
    "KEYS",
    "PATIENCE",
    "Screen",
    "Session",
    "answers",
    "press",
    "question",
    "request",
    "tui_plan",
]

#: The kit's driver program (``user_interaction.testing.driver``).
DRIVER = ["-m", "user_interaction.testing.driver"]
PATIENCE = 60.0  # generous: only a hung provider ever waits this long
KEYS = {
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "enter": "\r",
    "tab": "\t",
    "esc": "\x1b",
    "ctrl-c": "\x03",
}


class Screen:
    """What a terminal shows: every byte the program wrote, fed to a VT100 emulator by a
    thread of its own, so the program never blocks on a full terminal buffer."""

    def __init__(self, child: Any, columns: int, rows: int) -> None:
        self.child = child
        self.columns = columns
        self.rows = rows
        self._lock = threading.Condition()
        self._screen = pyte.Screen(columns, rows)
        self._stream = pyte.Stream(self._screen)
        self._raw: list[str] = []
        self._frames: list[str] = []
        self._ended = False
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(1 << 16, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except (pexpect.EOF, OSError, ValueError):
                with self._lock:
                    self._ended = True
                    self._lock.notify_all()
                return
            with self._lock:
                self._raw.append(data)
                self._stream.feed(data)
                frame = self.display()
                if not self._frames or self._frames[-1] != frame:
                    self._frames.append(frame)
                self._lock.notify_all()

    def display(self) -> str:
        """The screen as it is now, one line per row, trailing blanks cut."""
        return "\n".join(line.rstrip() for line in self._screen.display).rstrip("\n")

    def now(self) -> str:
        with self._lock:
            return self.display()

    def colour_of(self, text: str, at: int = 0) -> str:
        """The foreground colour of ``text``'s character ``at`` where the screen shows it
        (pyte's name: ``green``, ``red``, ``default``...)."""
        with self._lock:
            for row, line in enumerate(self._screen.display):
                column = line.find(text)
                if column >= 0:
                    return str(self._screen.buffer[row][column + at].fg)
        raise AssertionError(f"{text!r} is not on the screen:\n{self.now()}")

    def raw(self) -> str:
        """Every character written, escape sequences included."""
        with self._lock:
            return "".join(self._raw)

    def history(self) -> str:
        """Every frame shown so far."""
        with self._lock:
            return "\n".join(self._frames)

    def wait(self, test: Callable[[str], bool], what: str, timeout: float = PATIENCE) -> str:
        """Wait until ``test(screen now)`` holds; return that screen."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                shown = self.display()
                if test(shown):
                    return shown
                left = deadline - time.monotonic()
                if left <= 0 or self._ended:
                    raise AssertionError(f"never shown: {what}; the screen:\n{shown}")
                self._lock.wait(min(left, 0.2))

    def cursor_at(self, column: int, row: int, timeout: float = PATIENCE) -> str:
        """Wait until the terminal's cursor is at ``column``, ``row`` (from 0)."""
        return self.wait(
            lambda _: (self._screen.cursor.x, self._screen.cursor.y) == (column, row),
            f"the cursor at column {column}, row {row}",
            timeout,
        )

    def shows(self, text: str, timeout: float = PATIENCE) -> str:
        return self.wait(lambda shown: text in shown, repr(text), timeout)

    def frame(self, text: str, timeout: float = PATIENCE) -> str:
        """Wait until ``text`` is on a whole frame: the key line at its bottom (drawn last,
        and wrapped on a narrow terminal) is there too, so nothing is still on its way."""
        return self.wait(
            lambda shown: text in shown and "Esc: cancel" in shown.replace("\n", ""),
            f"{text!r} on a whole frame",
            timeout,
        )

    def in_raw(self, text: str, timeout: float = PATIENCE) -> str:
        """Wait until ``text`` was written (it may have scrolled off or been redrawn)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while text not in "".join(self._raw):
                left = deadline - time.monotonic()
                if left <= 0 or self._ended:
                    raise AssertionError(f"never written: {text!r}; the screen:\n{self.display()}")
                self._lock.wait(min(left, 0.2))
            return "".join(self._raw)

    def join(self) -> None:
        self._thread.join(PATIENCE)


def press(child: Any, *keys: str) -> None:
    """Send keys by name (``down``, ``enter``, ``esc``...) or as literal text. A lone Esc
    is followed by a pause, so it is not read as the start of an escape sequence."""
    for key in keys:
        child.send(KEYS.get(key, key))
        if key == "esc":
            time.sleep(0.3)


def tui_plan(plan: dict[str, Any]) -> dict[str, Any]:
    """``plan`` for the kit's driver: through the tui, reporting the terminal's settings
    at the end, each report ending in CR LF."""
    return {"provider": "tui", "stty": True, "crlf": True, **plan}


class Session:
    """The driver program in a real pseudo-terminal, its screen, and its results."""

    def __init__(
        self, plan: dict[str, Any], *, columns: int = 100, rows: int = 30, **env: str
    ) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
        environment.pop("NO_COLOR", None)
        environment.update({"TERM": "xterm-256color", "PYTHONUNBUFFERED": "1", **env})
        self.child = pexpect.spawn(
            sys.executable,
            [*DRIVER, json.dumps(tui_plan(plan))],
            env=environment,
            encoding="utf-8",
            timeout=PATIENCE,
            dimensions=(rows, columns),
        )
        self.screen = Screen(self.child, columns, rows)

    def press(self, *keys: str) -> None:
        press(self.child, *keys)

    def signal(self, signum: int) -> None:
        self.child.kill(signum)

    def finish(self) -> dict[int, dict[str, Any]]:
        """Wait for the driver to end; its results by ask index."""
        self.screen.in_raw("DONE")
        self.screen.join()
        self.child.close()
        return self.results()

    def results(self) -> dict[int, dict[str, Any]]:
        return results(self.screen.raw())

    def stty(self) -> list[str]:
        (settings,) = [value for kind, value in read_reports(self.screen.raw()) if kind == "STTY"]
        return str(settings).split()

    def kill(self) -> None:
        self.child.close(force=True)


def answers(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The answer items of one RESULT, by question id."""
    assert "answer" in result, result
    return {item["id"]: item for item in result["answer"]["answers"]}
