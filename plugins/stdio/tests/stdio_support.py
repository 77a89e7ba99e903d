"""Helpers of the stdio tests: run the driver behind real pipes or a real terminal."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pexpect
from pexpect.popen_spawn import PopenSpawn

DRIVER = str(Path(__file__).with_name("stdio_driver.py"))
TIMEOUT = 60  # generous: only a hung child ever waits this long
MODES = ("pipe", "tty")


def question(
    id: str,
    text: str,
    *labels: str,
    header: str | None = None,
    multi: bool = False,
    detail: str | None = None,
    descriptions: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One question in the wire form."""
    data: dict[str, Any] = {"id": id, "question": text}
    if header is not None:
        data["header"] = header
    if labels:
        described = descriptions or {}
        data["options"] = [
            {"label": label, **({"description": described[label]} if label in described else {})}
            for label in labels
        ]
    if multi:
        data["multiSelect"] = True
    if detail is not None:
        data["detail"] = detail
    return data


def request(*questions: dict[str, Any]) -> dict[str, Any]:
    return {"questions": list(questions)}


class Session:
    """The driver as a child process: through pipes (``pipe``) or a pseudo-terminal (``tty``)."""

    def __init__(
        self,
        mode: str,
        plan: dict[str, Any],
        *,
        driver: str = DRIVER,
        env: dict[str, str] | None = None,
    ) -> None:
        self.mode = mode
        environment = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
        for name in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE"):
            environment.pop(name, None)
        environment["PYTHONUNBUFFERED"] = "1"
        environment["TERM"] = "dumb"  # no colour or bracketed-paste sequences from readline
        environment.update(env or {})
        env = environment
        args = [driver, json.dumps(plan)]
        self.screen = io.StringIO()
        self.child: Any
        if mode == "tty":
            self.child = pexpect.spawn(
                sys.executable,
                args,
                env=env,
                encoding="utf-8",
                timeout=TIMEOUT,
                dimensions=(40, 250),
            )
        else:
            self.child = PopenSpawn(
                [sys.executable, *args], env=env, encoding="utf-8", timeout=TIMEOUT
            )
        self.child.logfile_read = self.screen

    def expect(self, text: str) -> str:
        """Wait until ``text`` is shown; return what was shown before it."""
        self.child.expect_exact(text)
        return str(self.child.before)

    def type(self, line: str) -> None:
        self.child.sendline(line)

    def type_bytes(self, data: bytes) -> None:
        """Send raw bytes, such as a terminal in another encoding would."""
        if self.mode == "tty":
            os.write(self.child.child_fd, data)
        else:
            self.child.proc.stdin.write(data)
            self.child.proc.stdin.flush()

    def answer(self, *lines: str) -> None:
        """Type each line once its prompt is shown."""
        for line in lines:
            self.expect("> ")
            self.type(line)

    def taken(self, echo: str) -> None:
        """On a terminal, wait until its line discipline has what was typed (it shows
        ``echo``, its echo): a pseudo-terminal takes input asynchronously. Through a pipe
        the child's end holds it as soon as it is written."""
        if self.mode == "tty":
            self.expect(echo)

    def end_input(self) -> None:
        self.child.sendeof()

    def signal(self, signum: int) -> None:
        self.child.kill(signum)

    def finish(self) -> dict[int, dict[str, Any]]:
        """Wait for the driver to end; its results by ask index."""
        self.expect("DONE")
        self.close()
        return self.results()

    def results(self) -> dict[int, dict[str, Any]]:
        found = [json.loads(m) for m in re.findall(r"RESULT (.*)", self.text)]
        return {item["index"]: item for item in found}

    def threads(self) -> list[str]:
        match = re.search(r"THREADS (.*)", self.text)
        assert match is not None
        return list(json.loads(match.group(1)))

    @property
    def text(self) -> str:
        """Everything shown so far, with the terminal's CR LF line ends made LF."""
        return self.screen.getvalue().replace("\r\n", "\n")

    def close(self) -> None:
        child = self.child
        if self.mode == "tty":
            child.expect(pexpect.EOF)
            child.close()
        else:
            child.expect(pexpect.EOF)
            child.proc.stdin.close()
            child.wait()
            child.proc.stdout.close()

    def kill(self) -> None:
        """Clean up after a failed test (no waiting)."""
        child = self.child
        if self.mode == "tty":
            child.close(force=True)
        else:
            if child.proc.poll() is None:
                child.proc.kill()
            child.proc.wait()
            for stream in (child.proc.stdin, child.proc.stdout):
                stream.close()


def answers(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The answer items of one RESULT, by question id."""
    assert "answer" in result, result
    return {item["id"]: item for item in result["answer"]["answers"]}
