"""Helpers of the stdio tests: run the driver behind real pipes or a real terminal (the
request builders are the testing kit's)."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from typing import Any

import pexpect
from pexpect.popen_spawn import PopenSpawn

from user_interaction.testing import wire_question as question
from user_interaction.testing import wire_request as request
from user_interaction.testing.driver import results

__all__ = ["MODES", "TIMEOUT", "Session", "answers", "question", "request"]

#: The kit's driver program, asking through the stdio provider.
DRIVER = ["-m", "user_interaction.testing.driver"]
TIMEOUT = 60  # generous: only a hung child ever waits this long
MODES = ("pipe", "tty")


class Session:
    """The driver as a child process: through pipes (``pipe``) or a pseudo-terminal (``tty``)."""

    def __init__(
        self,
        mode: str,
        plan: dict[str, Any],
        *,
        driver: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """Run ``plan``: by the kit's driver (``user_interaction.testing.driver``) through
        the stdio provider, reporting its reader threads; or by the program ``driver``."""
        self.mode = mode
        environment = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
        for name in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE"):
            environment.pop(name, None)
        environment["PYTHONUNBUFFERED"] = "1"
        environment["TERM"] = "dumb"  # no colour or bracketed-paste sequences from readline
        environment.update(env or {})
        env = environment
        if driver is None:
            plan = {"provider": "stdio", "threads": "user-interaction-stdio", **plan}
            if plan.get("register") is True:
                plan["register"] = "user_interaction_stdio:StdioProvider"
        args = [*(DRIVER if driver is None else [driver]), json.dumps(plan)]
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
        return results(self.text)

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
