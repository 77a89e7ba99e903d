"""Helpers of the command-line tests: run ``user-interaction`` in a subprocess behind real
pipes, with test-only provider distributions on ``PYTHONPATH``."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from child_support import child_stderr, completed
from distfactory import make_dist

TIMEOUT = 60  # generous: only a hung child ever waits this long
BIN = Path(sys.executable).parent
SCRIPT = shutil.which("user-interaction", path=str(BIN))

# A provider whose behaviour the test picks with CLI_TEST_PLAN.
SCRIPTED = """
import os
import sys
import time

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    UserInteractionError,
)


def _item(item, plan):
    labels = [option.label for option in item.options]
    if plan == "first":
        return AskUserQuestionAnswerItem(item.id, labels[:1], None if labels else "typed")
    if plan == "all":
        return AskUserQuestionAnswerItem(item.id, labels)
    if plan == "skip":
        return AskUserQuestionAnswerItem(item.id)
    if plan.startswith("custom:"):
        return AskUserQuestionAnswerItem(item.id, custom=plan[len("custom:"):])
    if plan == "invalid":
        return AskUserQuestionAnswerItem(item.id, ["not offered"])
    raise AssertionError(plan)


class Scripted:
    name = "cli-test"

    def ask(self, request):
        plan = os.environ.get("CLI_TEST_PLAN", "first")
        if os.environ.get("CLI_TEST_CHATTY"):
            print("provider says hello", flush=True)
        if plan.startswith("error:"):
            raise UserInteractionError("the provider says no", plan[len("error:"):])
        if plan == "crash":
            raise RuntimeError("boom")
        if plan == "sleep":
            time.sleep(30)
        if plan == "omit":
            return AskUserQuestionAnswer([])
        return AskUserQuestionAnswer([_item(item, plan) for item in request.questions])
"""


def make_site(root: Path) -> Path:
    """A directory for ``PYTHONPATH`` with the test providers ``cli-test`` (answers as
    ``CLI_TEST_PLAN`` says) and ``cli-test-broken`` (fails to import)."""
    root.mkdir(parents=True, exist_ok=True)
    make_dist(
        root,
        "cli-test-providers",
        entry_points={
            "cli-test": "cli_test_provider:Scripted",
            "cli-test-broken": "cli_test_broken:Provider",
        },
        modules={
            "cli_test_provider.py": SCRIPTED,
            "cli_test_broken.py": "import cli_test_no_such_dependency\n",
        },
    )
    return root


def child_env(site: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a child: no provider or trace chosen, ``site`` on the path."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("USER_INTERACTION_PROVIDER", "USER_INTERACTION_TRACE", "CLI_TEST_PLAN")
    }
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def command(kind: str = "module") -> list[str]:
    """How to start the command line: ``python -m user_interaction`` or the script."""
    if kind == "script":
        assert SCRIPT is not None
        return [SCRIPT]
    return [sys.executable, "-m", "user_interaction"]


# Restores the default SIGINT disposition, then becomes the real child (same process).
_SIGINT_DEFAULT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def with_default_sigint(argv: list[str]) -> list[str]:
    """``argv``, started so that Ctrl-C (SIGINT) works in the child even when this process
    ignores SIGINT.

    A child inherits an ignored SIGINT (a test run started in the background by a
    non-interactive shell, say), and Python then never installs its KeyboardInterrupt
    handler: a test that interrupts the child would wait for it in vain. Here the child
    first restores the default and then executes ``argv`` in place (its pid stays the
    same), with no ``preexec_fn`` (unsafe while threads run).
    """
    if sys.platform == "win32" or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        return argv
    return [sys.executable, "-S", "-c", _SIGINT_DEFAULT, *argv]


def run(
    *args: str,
    site: Path | None = None,
    input: str | None = None,
    kind: str = "module",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """Run the command line to its end behind pipes (its stderr read by
    :func:`child_stderr`)."""
    done = subprocess.run(
        with_default_sigint([*command(kind), *args]),
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env if env is not None else child_env(site),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return completed(done)


class Child:
    """A running command line whose stdout is read line by line, with timeouts.

    Every child still running when its test ends is killed and its pipes closed
    (:func:`end_children`, an autouse fixture of the core's tests), so a failed assertion
    leaves no pipe for the garbage collector to find, and warn about, in a later test.
    """

    running: ClassVar[set[Child]] = set()

    def __init__(
        self,
        args: list[str],
        *,
        env: dict[str, str],
        cwd: Path | None = None,
        program: list[str] | None = None,
    ) -> None:
        """Start ``program`` (default: the command line) with ``args``."""
        self.process = subprocess.Popen(
            with_default_sigint([*(command() if program is None else program), *args]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=env,
            cwd=cwd,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()
        Child.running.add(self)

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """The next line of stdout that matches ``pattern`` (a regular expression)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._queue.get(timeout=max(remaining, 0.01))
            except queue.Empty:
                raise AssertionError(self._report(f"timed out waiting for {pattern!r}")) from None
            if line is None:
                self._queue.put(None)
                raise AssertionError(self._report(f"stdout ended before {pattern!r}"))
            self.lines.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close_input(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def finish(self, timeout: float = TIMEOUT) -> tuple[int, str]:
        """Wait for the end; the exit status and stderr (read by :func:`child_stderr`)."""
        try:
            if self.process.stdin is not None and not self.process.stdin.closed:
                self.process.stdin.close()
            status = self.process.wait(timeout)
        finally:
            self.kill()
        return status, child_stderr(self._close())

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)

    def _close(self) -> str:
        """Close every pipe (after the end); returns what stderr had."""
        Child.running.discard(self)
        self._reader.join(TIMEOUT)
        process = self.process
        err = process.stderr.read() if process.stderr is not None else ""
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # stdin of a dead child: a broken pipe at flush
                    pass
        return err

    def _report(self, problem: str) -> str:
        self.kill()
        err = self._close()
        shown = "\n".join(self.lines)
        return f"{problem}\n--- stdout so far ---\n{shown}\n--- stderr ---\n{err}"


def end_children() -> None:
    """Kill the children a test left running and close their pipes."""
    for child in list(Child.running):
        child.kill()
        child._close()


def stdio_installed() -> bool:
    """Whether the stdio provider is installed as a distribution (its entry point)."""
    from user_interaction import UserInteraction

    return any(
        info.name == "stdio" and info.value.startswith("user_interaction_stdio")
        for info in UserInteraction().providers()
    )


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in ``path``, making sure its mtime moves on."""
    before = path.stat().st_mtime_ns
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, text)
    path.write_text(text.replace(old, new), encoding="utf-8")
    if path.stat().st_mtime_ns == before:  # a coarse clock: move it on by hand
        os.utime(path, ns=(before + 10_000_000, before + 10_000_000))


def json_lines(text: str) -> list[Any]:
    import json

    return [json.loads(line) for line in text.splitlines() if line.strip()]
