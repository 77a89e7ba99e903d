"""Real processes for the inbox's tests: ``user-interaction inbox serve`` on a free loopback
port, agents asking through the ``inbox`` provider, and the command line."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from cli_support import with_default_sigint
from user_interaction_inbox._address import Address, InboxUnreachable, Reply

CLI = [sys.executable, "-m", "user_interaction"]
HERE = Path(__file__).resolve().parent
QUESTION = {
    "id": "pkg",
    "question": "Which package manager?",
    "options": [{"label": "npm"}, {"label": "pnpm"}],
}
REQUEST: dict[str, Any] = {"questions": [QUESTION]}
NPM = {"answers": [{"id": "pkg", "selected": ["npm"]}]}


def environment(state: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["USER_INTERACTION_STATE_DIR"] = str(state)
    env.pop("USER_INTERACTION_INBOX", None)
    env.pop("USER_INTERACTION_PROVIDER", None)
    env["PYTHONFAULTHANDLER"] = "1"  # a crash prints every thread's stack to stderr
    env.update(extra)
    return env


def wait_until(predicate: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    """Wait for a state another process reaches (checked again and again, with a bound)."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


class Inbox:
    """``user-interaction inbox serve --port 0`` in a process of its own."""

    def __init__(self, state: Path, *args: str) -> None:
        self.state = state
        self.process = subprocess.Popen(
            with_default_sigint([*CLI, "inbox", "serve", "--port", "0", *args]),
            env=environment(state),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        self.first_line = ""
        for line in self.process.stderr:  # "serving at" is written after inbox.json
            self.first_line += line
            if "serving at" in line:
                break
        assert "serving at" in self.first_line, self.first_line + self.stop()
        record = json.loads((state / "inbox.json").read_text())
        assert record["pid"] == self.process.pid
        self.record = record
        self.address = Address.parse(record["url"], record["token"])

    def call(self, method: str, path: str, payload: object = None) -> Reply:
        return self.address.request(method, path, payload)

    def pending(self) -> list[dict[str, Any]]:
        reply = self.call("GET", "/api/asks")
        assert reply.status == 200, reply
        asks: list[dict[str, Any]] = reply.body["asks"]
        return asks

    def wait_for_pending(self, count: int) -> list[dict[str, Any]]:
        wait_until(lambda: len(self.pending()) == count, f"{count} pending asks")
        return self.pending()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        assert self.process.stderr is not None
        self.process.stderr.close()

    def stop(self, number: int = signal.SIGTERM) -> str:
        """End the server with ``number``; its stderr ("" when already stopped)."""
        assert self.process.stderr is not None
        if self.process.stderr.closed:
            return ""
        if self.process.poll() is None:
            self.process.send_signal(number)
        assert self.process.stderr is not None
        try:
            rest = self.process.stderr.read()
        finally:
            self.process.stderr.close()
            self.process.wait(30)
        return self.first_line + rest

    def reachable(self) -> bool:
        try:
            return self.call("GET", "/api/inbox").status == 200
        except InboxUnreachable:
            return False


AGENT = """
import json, sys, threading
from user_interaction import (
    AbortController, AskUserQuestionRequest, UserInteraction, UserInteractionError,
)
key, timeout, provider = sys.argv[1] or None, float(sys.argv[2]) or None, sys.argv[3] or None
request = AskUserQuestionRequest.from_dict(json.loads(sys.argv[4]))
controller = AbortController()
if sys.argv[5] == "abortable":  # a line on stdin aborts the ask (the agent gives up)
    threading.Thread(
        target=lambda: (sys.stdin.readline(), controller.abort()), daemon=True
    ).start()
request = AskUserQuestionRequest(
    request.questions, agent="test agent", key=key, signal=controller.signal
)
with UserInteraction() as ui:
    ui.use(provider)
    print("ready", flush=True)
    try:
        answer = ui.ask_sync(request, timeout=timeout)
    except UserInteractionError as error:
        print(json.dumps({"error": error.code, "message": error.message}), flush=True)
    else:
        print(json.dumps({"answer": answer.to_dict()}), flush=True)
"""


class Agent:
    """A process asking one question through the inbox; its outcome is its last line."""

    #: The agents started and not yet ended: ``end_all()`` kills those a failed test left.
    running: ClassVar[list[Agent]] = []

    def __init__(
        self,
        state: Path,
        *,
        key: str | None = None,
        timeout: float | None = 120.0,
        provider: str | None = "inbox",
        request: dict[str, Any] | None = None,
        abortable: bool = False,
        **env: str,
    ) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                AGENT,
                key or "",
                str(timeout or 0),
                provider or "",
                json.dumps(request or REQUEST),
                "abortable" if abortable else "",
            ],
            env=environment(state, **env),
            stdin=subprocess.PIPE if abortable else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        Agent.running.append(self)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line == "ready\n", line + self.errors()

    @classmethod
    def end_all(cls) -> None:
        while cls.running:
            agent = cls.running.pop()
            if agent.process.poll() is None:
                agent.process.kill()
            agent.process.communicate()

    def errors(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read() if self.process.poll() is not None else ""

    def outcome(self, timeout: float = 60.0) -> dict[str, Any]:
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        out, err = self.process.communicate(timeout=timeout)
        assert out.strip(), err
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    def kill(self) -> None:
        self.process.kill()
        self.process.communicate()

    def abort(self) -> None:
        """Make an ``abortable`` agent give up its ask (its signal aborts)."""
        assert self.process.stdin is not None
        self.process.stdin.write("abort\n")
        self.process.stdin.flush()


def asking(question_id: str) -> dict[str, Any]:
    """A request of one question with its own id (answers files answer by id)."""
    return {"questions": [{**QUESTION, "id": question_id}]}


class Attend:
    """``user-interaction inbox attend`` answering from an answers file (the scripted
    provider), or, without one, through the provider it chooses with its stdin a pipe
    (``answer`` writes to it, ``out`` collects its stdout); its stderr lines are read
    as they come."""

    def __init__(self, state: Path, answers: Path | None, *args: str) -> None:
        chosen = (
            [] if answers is None else ["-p", "scripted", "--provider-option", f"path={answers}"]
        )
        self.process = subprocess.Popen(
            with_default_sigint([*CLI, "inbox", "attend", *chosen, *args]),
            env=environment(state),
            stdin=subprocess.DEVNULL if answers else subprocess.PIPE,
            stdout=subprocess.DEVNULL if answers else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.out: list[str] = []
        self._readers = [threading.Thread(target=self._read, daemon=True)]
        if self.process.stdout is not None:
            self._readers.append(threading.Thread(target=self._read_out, daemon=True))
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        with self.process.stderr:
            for line in self.process.stderr:
                self.lines.put(line)
        self.lines.put("")  # end of output

    def _read_out(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            self.out.extend(self.process.stdout)

    def answer(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, text: str, timeout: float = 60.0) -> str:
        """The next line holding ``text`` (the lines before it are kept in ``seen``)."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line with {text!r}; saw {self.seen}") from None
            assert line, f"attend ended before a line with {text!r}; saw {self.seen}"
            self.seen.append(line)
            if text in line:
                return line

    def interrupt(self) -> tuple[int, str]:
        """SIGINT; the exit status and the lines written after those already read."""
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(60)
        rest = []
        while (line := self.lines.get(timeout=60)) != "":
            rest.append(line)
        self.stop()
        return status, "".join(rest)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(60)
        for reader in self._readers:
            reader.join(60)
        if self.process.stdin is not None:
            self.process.stdin.close()


def cli(state: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """``user-interaction ARGS`` with the state directory ``state``."""
    return subprocess.run(
        [*CLI, *args],
        env=environment(state, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
