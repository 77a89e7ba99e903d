"""``examples/try_agent.py``: the terminal client that tries the example agent without an
editor, run as a user runs it (a real process; the agent its own child over stdio)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from acp_support import EXAMPLE, prompt_text

from user_interaction import ASK_CANCELLED, PROVIDER_FAILED
from user_interaction.testing import wire_question as question

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

CLIENT = EXAMPLE.with_name("try_agent.py")


def try_agent(typed: str, *args: str) -> tuple[int, Any, str]:
    """Run the client with ``typed`` as the user's input: (status, reply, what it showed)."""
    done = subprocess.run(
        [sys.executable, str(CLIENT), *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_the_demo_questions_as_menus_and_the_reply_on_stdout() -> None:
    status, reply, shown = try_agent("2\n1\n2\n")
    assert status == 0, shown
    assert reply == {
        "answers": [{"id": "pkg", "selected": ["npm"]}, {"id": "checks", "selected": ["lint"]}]
    }
    assert "Package manager: Which package manager should I use?\n" in shown
    assert "- npm: the default\n  1. pnpm\n  2. npm\nChoose 1-2: " in shown
    assert "Checks: Which checks should run before each commit? (2/2)\n" in shown
    assert "Option 2 of 2: tests\n  1. Include\n  2. Skip\n" in shown


def test_a_wrong_number_asks_again() -> None:
    status, reply, shown = try_agent("x\n9\n1\n1\n1\n")
    assert status == 0, shown
    assert reply["answers"][1] == {"id": "checks", "selected": ["lint", "tests"]}
    assert shown.count("Type a number from 1 to 2.") == 2


def test_end_of_input_cancels() -> None:
    status, reply, _ = try_agent("1\n")
    assert status == 0
    assert reply["error"]["code"] == ASK_CANCELLED


def test_a_free_text_question_fails_clearly_without_forms() -> None:
    status, reply, shown = try_agent("", prompt_text(question("name", "Project name?")))
    assert status == 0
    assert reply["error"]["code"] == PROVIDER_FAILED
    assert "question 'name' is free text" in reply["error"]["message"]
    assert "Choose" not in shown


def test_the_agents_text_cannot_drive_the_terminal() -> None:
    request = prompt_text(question("go", "Ship \x1b[2J\u202eit?", "yes", "no"))
    status, reply, shown = try_agent("1\n", request)
    assert status == 0, shown
    assert reply == {"answers": [{"id": "go", "selected": ["yes"]}]}
    assert "\x1b" not in shown
    assert "\u202e" not in shown
    assert "Ship \\u001b[2J\\u202eit?" in shown
