"""The provider conformance suite of user-interaction, run against InboxProvider and a real
``inbox serve`` process: the simulated human reads the pending asks from the API that
``inbox list`` uses and settles them with the call ``inbox answer`` makes."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from inbox_support import Inbox
from user_interaction_inbox import InboxProvider

from user_interaction import AskUserQuestionItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class InboxDriver(ConformanceDriver):
    """The human at the inbox: answers each question of an ask, and settles the ask once
    every question has been acted on (a request is one ask)."""

    def __init__(self, inbox: Inbox) -> None:
        self._inbox = inbox
        self._lock = threading.Lock()
        self._seen: dict[str, dict[str, Any]] = {}  # ask id -> ask, everything ever listed
        self._filled: dict[str, list[dict[str, Any]]] = {}  # ask id -> answers so far

    def make_provider(self) -> InboxProvider:
        return InboxProvider(url=self._inbox.address.page, agent="conformance")

    def _asks(self) -> list[dict[str, Any]]:
        asks = self._inbox.pending()
        with self._lock:
            for ask in asks:
                self._seen[ask["id"]] = ask
        return asks

    def _ask_of(self, question: AskUserQuestionItem) -> dict[str, Any] | None:
        for ask in self._asks():
            if any(shown["id"] == question.id for shown in ask["request"]["questions"]):
                return ask
        return None

    async def wait_until_shown(self, question: AskUserQuestionItem) -> None:
        while await asyncio.to_thread(self._ask_of, question) is None:  # noqa: ASYNC110
            await asyncio.sleep(0.01)

    def _settle(self, ask: dict[str, Any], payload: dict[str, Any]) -> None:
        reply = self._inbox.call("POST", f"/api/asks/{ask['id']}/settle", {**payload, "by": "d"})
        assert reply.status == 200, reply

    def _fill(self, question: AskUserQuestionItem, item: dict[str, Any]) -> None:
        ask = self._ask_of(question)
        assert ask is not None, f"{question.question!r} is not in the inbox"
        with self._lock:
            answers = self._filled.setdefault(ask["id"], [])
            answers.append(item)
            complete = len(answers) == len(ask["request"]["questions"])
        if complete:
            self._settle(ask, {"action": "answer", "answer": {"answers": answers}})

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        self._fill(question, {"id": question.id, "selected": list(labels)})

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        self._fill(question, {"id": question.id, "selected": list(labels), "notes": notes})

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        self._fill(question, {"id": question.id, "selected": [], "custom": text})

    def skip(self, question: AskUserQuestionItem) -> None:
        self._fill(question, {"id": question.id, "selected": []})

    def cancel(self, question: AskUserQuestionItem) -> None:
        ask = self._ask_of(question)
        assert ask is not None
        self._settle(ask, {"action": "cancel"})

    def decline(self, question: AskUserQuestionItem) -> None:
        ask = self._ask_of(question)
        assert ask is not None
        self._settle(ask, {"action": "decline"})

    def screen_text(self) -> str:
        with self._lock:
            asks = list(self._seen.values())
        return "\n".join(json.dumps(ask["request"], ensure_ascii=False) for ask in asks)


@pytest.fixture(scope="module")
def shared_inbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inbox]:
    """One server for the module: starting a process per test would dominate the run."""
    server = Inbox(Path(tmp_path_factory.mktemp("inbox-state")))
    yield server
    server.stop()


class TestInboxConformance(ProviderConformance):
    @pytest.fixture
    def driver(self, shared_inbox: Inbox) -> InboxDriver:
        return InboxDriver(shared_inbox)
