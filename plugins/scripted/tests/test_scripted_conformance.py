"""The provider conformance suite of user-interaction, run against the scripted provider
loaded through its entry point: the simulated human writes the answers file before each
ask (the provider reads it again at every ask)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from user_interaction_scripted import ANSWERS_ENV

from user_interaction import AskUserQuestionItem, UserInteraction
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class AnswersFileDriver(ConformanceDriver):
    answers_in_advance = True  # the file must hold the answer before the question is asked

    def __init__(self, path: Path) -> None:
        self.path = path
        self.answers: dict[str, Any] = {}
        self._write()

    def _write(self) -> None:
        self.path.write_text(json.dumps({"answers": self.answers}), encoding="utf-8")

    def _set(self, question: AskUserQuestionItem, answer: object) -> None:
        self.answers[question.id] = answer
        self._write()

    def make_provider(self) -> object:
        (info,) = [info for info in UserInteraction().providers() if info.name == "scripted"]
        return info.load()  # the entry point, reading USER_INTERACTION_ANSWERS

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        self._set(question, list(labels))

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        self._set(question, {"selected": list(labels), "notes": notes})

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        self._set(question, {"custom": text})

    def skip(self, question: AskUserQuestionItem) -> None:
        self._set(question, {"skip": True})

    def cancel(self, question: AskUserQuestionItem) -> None:
        self._set(question, {"error": "ASK_CANCELLED"})

    def decline(self, question: AskUserQuestionItem) -> None:
        self._set(question, {"error": "ASK_DECLINED"})

    def stay_silent(self, question: AskUserQuestionItem) -> None:
        self._set(question, {"silent": True})


class TestScriptedConformance(ProviderConformance):
    @pytest.fixture
    def driver(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AnswersFileDriver:
        path = tmp_path / "answers.json"
        monkeypatch.setenv(ANSWERS_ENV, str(path))
        return AnswersFileDriver(path)
