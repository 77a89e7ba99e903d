"""Test kit for the inbox page's browser tests: the web provider's browser kit (Playwright
driving Debian's chromium, tabs recording console errors) pointed at an inbox, and asks
posted the way the ``inbox`` provider posts them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from inbox_support import QUESTION, Inbox

WEB_TESTS = str(Path(__file__).resolve().parents[2] / "web" / "tests")
if WEB_TESTS not in sys.path:
    sys.path.append(WEB_TESTS)

from browser_support import STEP_MS, Tab, axe, launch  # noqa: E402

__all__ = ["STEP_MS", "Tab", "axe", "ask", "launch", "page_of"]


def page_of(inbox: Inbox, path: str = "/", *, token: bool = True) -> str:
    """The page's address at ``path``: with the token in the fragment, as ``inbox open``
    prints it, or without (as a notification links to an ask)."""
    return f"{inbox.address.base}{path}" + (f"#{inbox.address.token}" if token else "")


def ask(
    inbox: Inbox,
    question_id: str,
    *,
    agent: str = "agent A",
    time_left: float | None = None,
    question: dict[str, Any] | None = None,
) -> str:
    """Post an ask as an agent does (``POST /api/asks``); its id."""
    item = {**(question or QUESTION), "id": question_id}
    payload: dict[str, Any] = {"request": {"questions": [item]}, "agent": agent}
    if time_left is not None:
        payload["timeLeft"] = time_left
    reply = inbox.call("POST", "/api/asks", payload)
    assert reply.status == 200, reply
    ask_id: str = reply.body["id"]
    return ask_id
