"""One ask on two real screens through the core's ``any`` provider: the tui in a
pseudo-terminal and the web page over HTTP. The page answers; the tui clears itself."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from web_support import Client

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("user_interaction_tui") is None,
    reason="needs the tui provider: pip install -e 'plugins/tui[test]'",
)

AGENT = textwrap.dedent(
    """
    import json, sys
    from user_interaction import AskUserQuestionRequest, UserInteraction
    sys.stderr = open(sys.argv[1], "w", buffering=1)  # the page's address, off the screen
    with UserInteraction() as ui:
        ui.use("any", providers=["tui", ("web", {"port": 0})])
        answer = ui.ask_sync(AskUserQuestionRequest.from_dict(json.loads(sys.argv[2])))
        print("RESULT", json.dumps(answer.to_dict()), flush=True)
        input()  # the tui is still there: it cleared when withdrawn, not at the end
    """
)
REQUEST = {
    "questions": [
        {
            "id": "pkg",
            "question": "Which package manager?",
            "options": [
                {"label": "pnpm", "description": "fast, strict"},
                {"label": "npm", "description": "the default"},
            ],
        }
    ]
}
PATIENCE = 60.0
LEAVE_ALTERNATE_SCREEN = "\x1b[?1049l"


class Terminal:
    """The child's pseudo-terminal, rendered by pyte."""

    def __init__(self, child: Any, columns: int, rows: int) -> None:
        self.child = child
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""

    def wait(self, test: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + PATIENCE
        while not test():
            assert time.monotonic() < deadline, f"never {what}:\n{self.display()}"
            try:
                data = self.child.read_nonblocking(1 << 16, timeout=1)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                assert test(), f"ended before {what}:\n{self.display()}"
                return
            self.raw += data
            self.stream.feed(data)

    def display(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)


def test_the_page_answers_and_the_tui_clears_itself(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    env = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
    env.update({"TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"})
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        sys.executable,
        ["-c", AGENT, str(log), json.dumps(REQUEST)],
        env=env,
        encoding="utf-8",
        timeout=PATIENCE,
        dimensions=(24, 80),
    )
    try:
        terminal = Terminal(child, 80, 24)
        terminal.wait(lambda: "fast, strict" in terminal.display(), "showed the question")
        terminal.wait(lambda: "answer questions at" in log.read_text("utf-8"), "printed the URL")
        (url,) = re.findall(r"answer questions at (\S+)", log.read_text("utf-8"))
        client = Client(url)
        (card,) = client.snapshot()
        answers = [{"id": "pkg", "selected": ["npm"]}]
        sent = client.post({"askId": card["askId"], "action": "accept", "answers": answers})
        assert sent.status == 200, sent.body
        printed = re.compile(r"RESULT (.*?)\r?\n")
        terminal.wait(lambda: printed.search(terminal.raw) is not None, "printed the answer")
        (result,) = printed.findall(terminal.raw)
        assert json.loads(result) == {"answers": [{"id": "pkg", "selected": ["npm"]}]}
        # The tui left its (alternate) screen before the caller had the answer: what the
        # caller prints next never lands on a screen still showing the question.
        raw = terminal.raw
        asked = raw.index("fast, strict")
        assert LEAVE_ALTERNATE_SCREEN in raw[asked : raw.index("RESULT")], raw[asked:]
        child.sendline("")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, terminal.raw
