"""The provider conformance suite of user-interaction, run against WebProvider: the
simulated human reads the pending asks from the event stream and answers with the same
``POST /api/answer`` the page sends."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from user_interaction_web import WebProvider
from web_support import Client

from user_interaction import AskUserQuestionItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class HttpDriver(ConformanceDriver):
    """A tab that answers each question of a card, and submits the card once every
    question has been acted on (a batch is one card)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._provider: WebProvider | None = None
        self._seen: dict[str, dict[str, Any]] = {}  # askId -> card, everything ever shown
        self._filled: dict[str, list[dict[str, Any]]] = {}  # askId -> answers so far

    def make_provider(self) -> WebProvider:
        self._provider = WebProvider()
        return self._provider

    def _client(self) -> Client | None:
        url = self._provider.url if self._provider is not None else None
        return None if url is None else Client(url)

    def _cards(self) -> list[dict[str, Any]]:
        client = self._client()
        cards = [] if client is None else client.snapshot()
        with self._lock:
            for card in cards:
                self._seen[card["askId"]] = card
        return cards

    def _card_of(self, question: AskUserQuestionItem) -> dict[str, Any] | None:
        for card in self._cards():
            if any(shown["id"] == question.id for shown in card["questions"]):
                return card
        return None

    async def wait_until_shown(self, question: AskUserQuestionItem) -> None:
        while await asyncio.to_thread(self._card_of, question) is None:  # noqa: ASYNC110
            await asyncio.sleep(0.01)

    def _post(self, card: dict[str, Any], payload: dict[str, Any]) -> None:
        client = self._client()
        assert client is not None
        response = client.post({"askId": card["askId"], **payload})
        assert response.status == 200, (response.status, response.body)

    def _fill(self, question: AskUserQuestionItem, item: dict[str, Any]) -> None:
        card = self._card_of(question)
        assert card is not None, f"{question.question!r} is not on the page"
        with self._lock:
            answers = self._filled.setdefault(card["askId"], [])
            answers.append(item)
            complete = len(answers) == len(card["questions"])
        if complete:
            self._post(card, {"action": "accept", "answers": answers})

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
        card = self._card_of(question)
        assert card is not None
        self._post(card, {"action": "cancel"})

    def decline(self, question: AskUserQuestionItem) -> None:
        card = self._card_of(question)
        assert card is not None
        self._post(card, {"action": "decline"})

    def screen_text(self) -> str:
        with self._lock:
            cards = list(self._seen.values())
        return "\n".join(json.dumps(card, ensure_ascii=False) for card in cards)


class TestWebConformance(ProviderConformance):
    @pytest.fixture
    def driver(self) -> HttpDriver:
        return HttpDriver()
