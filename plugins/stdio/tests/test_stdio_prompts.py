"""One-line asks and ``require_approval`` through the stdio provider, typed by
a person at a real pseudo-terminal: each one-line ask, in its async and its sync form."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stdio_support import Session

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="ptys of POSIX")

DRIVER = str(Path(__file__).with_name("prompts_driver.py"))
CHOICES = (
    "Type a number or your own answer (=text: literal text, -: skip, 1 # text: add a note)\n> "
)
SEVERAL = "Type one or more numbers (like 1,3 or 1 3)"


@pytest.fixture(params=["async", "sync"])
def form(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def run(form: str) -> Iterator[Any]:
    sessions: list[Session] = []

    def start(*calls: list[Any]) -> Session:
        session = Session("tty", {"form": form, "calls": list(calls)}, driver=DRIVER)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.kill()


def outcomes(session: Session) -> list[Any]:
    """Each call's value, or ``(code, message)`` for an error, in call order."""
    results = session.finish()
    return [
        (item["error"], item["message"]) if "error" in item else item["value"]
        for _, item in sorted(results.items())
    ]


def ran(session: Session) -> list[Any]:
    """What the guarded targets were called with, each time one ran."""
    return [json.loads(line[4:]) for line in session.text.splitlines() if line.startswith("RAN ")]


def test_confirm(run: Any) -> None:
    ask = ["confirm", ["Deploy v2 to production?"], {"header": "Confirm", "detail": "3 hosts"}]
    session = run(ask, ask, ask, ask, ["confirm", ["Still there?"], {"timeout": 0.5}])
    session.answer("1", "2", "only on Fridays", "-")
    values = outcomes(session)
    assert values[:2] == [True, False]
    assert values[2] == ("ASK_DECLINED", "The answer was neither Yes nor No: 'only on Fridays'.")
    assert values[3][0] == "ASK_DECLINED"  # skipped
    assert values[4][0] == "ASK_TIMEOUT"  # nobody typed: the timeout went to ask()
    screen = session.text
    assert f"\n[Confirm] Deploy v2 to production?\n3 hosts\n  1. Yes\n  2. No\n{CHOICES}" in screen
    assert f"\nStill there?\n  1. Yes\n  2. No\n{CHOICES}" in screen


def test_select(run: Any) -> None:
    options = [{"label": "pnpm", "description": "fast, strict"}, "npm", "yarn"]
    ask = ["select", ["Which package manager?", options], {}]
    session = run(
        ["select", ["Which package manager?", ["npm", "npm"]], {}],  # never shown
        ["select", ["Which package manager?", []], {}],  # never shown
        ask,
        ask,
        ask,
        ask,
    )
    session.answer("2", "bun", "=3", "-")
    values = outcomes(session)
    assert values[0] == (
        "INVALID_REQUEST",
        "questions[0].options[1].label: duplicate label 'npm'",
    )
    assert values[1] == ("INVALID_REQUEST", "questions[0].options: at least one option is required")
    assert values[2:5] == ["npm", "bun", "3"]
    assert values[5][0] == "ASK_DECLINED"
    screen = session.text
    assert screen.count("Which package manager?") == 4  # the bad requests reached no one
    assert (
        f"\nWhich package manager?\n  1. pnpm\n     fast, strict\n  2. npm\n  3. yarn\n{CHOICES}"
    ) in screen


def test_checkbox(run: Any) -> None:
    ask = ["checkbox", ["Which linters?", ["ruff", "mypy", "pylint"]], {"header": "CI"}]
    session = run(ask, ask, ask, ["checkbox", ["Which linters?", ["ruff", " "]], {}])
    session.answer("3 1", "all of them", "-")
    values = outcomes(session)
    assert values[:3] == [["ruff", "pylint"], ["all of them"], []]
    assert values[3][0] == "INVALID_REQUEST"
    screen = session.text
    assert "\n[CI] Which linters?\n  1. ruff\n  2. mypy\n  3. pylint\n" in screen
    assert SEVERAL in screen


def test_text(run: Any) -> None:
    ask = ["text", ["Project name?"], {"detail": "used for the package"}]
    session = run(ask, ask, ask)
    session.answer("Ada Lovelace", "=1", "-")
    values = outcomes(session)
    assert values[:2] == ["Ada Lovelace", "1"]
    assert values[2][0] == "ASK_DECLINED"
    assert "\nProject name?\nused for the package\nType your answer" in session.text


@pytest.mark.parametrize(
    ("form", "function", "method"),
    [("sync", "delete_file", "reset"), ("async", "fetch_url", "push")],
    indirect=["form"],
)
def test_require_approval(run: Any, form: str, function: str, method: str) -> None:
    """A person typing 1 approves; 2, or anything but an explicit Yes, keeps it from running."""
    session = run(
        [function, ["notes.txt"], {}],
        [function, ["secrets.txt"], {}],
        [function, ["later.txt"], {}],
        [method, ["v1"], {}],
        [method, ["v2"], {}],
    )
    session.answer("1", "2", "not now", "1", "2")
    values = outcomes(session)
    verb = {"delete_file": "deleted", "fetch_url": "fetched"}[function]
    assert values[0] == f"{verb} notes.txt"
    assert values[1] == ("ASK_DECLINED", f"{function} was not approved.")
    assert values[2][0] == "ASK_DECLINED"
    assert values[3] == ("reset to v1" if method == "reset" else "pushed v1")
    assert values[4] == ("ASK_DECLINED", f"Repo.{method} was not approved.")
    first = [function, "notes.txt", False] if function == "delete_file" else [function, "notes.txt"]
    assert ran(session) == [first, [method, "v1"]]  # the declined calls never ran
    screen = session.text
    assert f"\n[Approve] Allow {function}?\n" in screen
    header = "[Git] Allow Repo.reset?" if method == "reset" else "[Git] Push to origin?"
    argument = "ref" if method == "reset" else "branch"
    assert f"\n{header}\n{argument}='v1'\n" in screen  # self is left out
    assert "self=" not in screen
