"""``user-interaction inbox attend`` in a real pseudo-terminal, the screen read back through a
VT100 emulator (pyte), as the tui's own tests do: through the tui (full screen) and through
stdio (line by line), two agents' asks answered oldest first and a third answered as it
arrives. Every step waits for what the screen shows."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import with_default_sigint
from inbox_support import CLI, Agent, Inbox, asking, environment

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("pyte")
pytest.importorskip("user_interaction_tui")

TUI_TESTS = str(Path(__file__).resolve().parents[2] / "tui" / "tests")
if TUI_TESTS not in sys.path:
    sys.path.append(TUI_TESTS)

from tui_support import PATIENCE, Screen, press  # noqa: E402


class Terminal:
    """``inbox attend --provider NAME`` in a pseudo-terminal of 100 columns and 30 rows."""

    def __init__(self, state: Path, provider: str) -> None:
        env = environment(state, TERM="xterm-256color", PYTHONUNBUFFERED="1")
        env.pop("NO_COLOR", None)
        argv = with_default_sigint([*CLI, "inbox", "attend", "--provider", provider, "--by", "ann"])
        self.child = pexpect.spawn(
            argv[0],
            argv[1:],
            env=env,
            encoding="utf-8",
            timeout=PATIENCE,
            dimensions=(30, 100),
        )
        self.screen = Screen(self.child, 100, 30)

    def press(self, *keys: str) -> None:
        press(self.child, *keys)

    def close(self) -> None:
        self.child.close(force=True)
        self.screen.join()


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.close()


def answered(question_id: str, label: str) -> dict[str, Any]:
    return {"answer": {"answers": [{"id": question_id, "selected": [label]}]}}


def test_attend_through_the_tui_in_a_terminal(
    state: Path, inbox: Inbox, terminals: list[Terminal]
) -> None:
    first = Agent(state, request=asking("a"))
    inbox.wait_for_pending(1)
    second = Agent(state, request=asking("b"))
    older, _ = inbox.wait_for_pending(2)
    terminal = Terminal(state, "tui")
    terminals.append(terminal)
    screen = terminal.screen
    screen.frame("Which package manager?")
    assert "left" in screen.now()  # the agent's deadline travels: the tui counts it down
    terminal.press("down", "enter")  # pnpm, for the older ask
    assert first.outcome() == answered("a", "pnpm")
    screen.in_raw(f"ask {older['id']}: answered")
    screen.frame("Which package manager?")
    terminal.press("enter")  # npm, for the newer
    assert second.outcome() == answered("b", "npm")
    screen.wait(lambda shown: shown.count("waiting for new asks") >= 1, "waiting")
    third = Agent(state, request=asking("c"))  # arrives while attend waits
    screen.frame("Which package manager?")
    terminal.press("2", "enter")  # the tui's number keys jump to an option
    assert third.outcome() == answered("c", "pnpm")
    assert inbox.pending() == []
    assert inbox.call("GET", f"/api/asks/{older['id']}").body["settledBy"] == "ann"  # --by
    shown = screen.history()
    assert "Traceback" not in screen.raw()
    assert "✓ Which package manager? → pnpm" in shown


def test_attend_through_stdio_in_a_terminal(
    state: Path, inbox: Inbox, terminals: list[Terminal]
) -> None:
    first = Agent(state, request=asking("a"))
    inbox.wait_for_pending(1)
    second = Agent(state, request=asking("b"))
    inbox.wait_for_pending(2)
    terminal = Terminal(state, "stdio")
    terminals.append(terminal)
    screen = terminal.screen
    screen.wait(lambda shown: shown.rstrip().endswith(">"), "the first prompt")
    terminal.press("2", "enter")
    assert first.outcome() == answered("a", "pnpm")
    screen.wait(lambda shown: shown.count("Which package manager?") == 2, "the second question")
    screen.wait(lambda shown: shown.rstrip().endswith(">"), "the second prompt")
    terminal.press("1", "enter")
    assert second.outcome() == answered("b", "npm")
    screen.in_raw("waiting for new asks")
    shown = screen.now()
    assert "✓ 2. pnpm" in shown
    assert "✓ 1. npm" in shown
    assert "asking " in shown
    assert "from test agent" in shown
    assert "Traceback" not in screen.raw()
