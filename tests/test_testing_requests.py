"""The testing kit's request builders and its driver program."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from user_interaction import AskUserQuestionRequest
from user_interaction.testing import first_choice, sample_request, wire_question, wire_request
from user_interaction.testing.driver import read_reports, results, run_plan
from user_interaction.tool import parse_arguments


def test_wire_question_sets_only_what_is_given() -> None:
    assert wire_question("name", "Name?") == {"id": "name", "question": "Name?"}
    full = wire_question(
        "pkg",
        "Which?",
        "pnpm",
        "npm",
        header="Setup",
        multi=True,
        detail="More.",
        descriptions={"pnpm": "fast"},
        previews={"npm": "`npm ci`"},
    )
    assert full == {
        "id": "pkg",
        "question": "Which?",
        "header": "Setup",
        "options": [
            {"label": "pnpm", "description": "fast"},
            {"label": "npm", "preview": "`npm ci`"},
        ],
        "multiSelect": True,
        "detail": "More.",
    }
    request = AskUserQuestionRequest.from_dict(wire_request(full, key="k"))
    assert request.key == "k"
    assert request.questions[0].options[1].preview == "`npm ci`"


def test_the_tool_form_is_what_the_tool_reads() -> None:
    data = wire_question("steps", "Which?", "lint", "test", multi=True, tool_form=True)
    assert "multi_select" in data
    assert parse_arguments(wire_request(data)).questions[0].multi_select


def test_sample_request_and_first_choice() -> None:
    request = sample_request("a", "b", multi=True)
    assert [item.id for item in request.questions] == ["a", "b"]
    assert [option.label for option in request.questions[0].options] == ["pnpm", "npm"]
    assert request.questions[0].multi_select
    answer = first_choice(request)
    assert [item.selected for item in answer.answers] == [("pnpm",), ("pnpm",)]


PROVIDER = """
import asyncio

from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem


class First:
    async def ask(self, request):
        if request.questions[0].id == "wait":
            await request.signal.race(asyncio.get_running_loop().create_future())
        items = [AskUserQuestionAnswerItem(q.id, [q.options[0].label]) for q in request.questions]
        return AskUserQuestionAnswer(items)
"""


def drive(tmp_path: Path, plan: dict[str, object]) -> str:
    (tmp_path / "driven_provider.py").write_text(PROVIDER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("USER_INTERACTION_PROVIDER", None)
    return run_plan(plan, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="the driver handles POSIX signals")
def test_the_driver_reports_each_outcome(tmp_path: Path) -> None:
    plan = {
        "register": "driven_provider:First",
        "requests": [
            wire_request(wire_question("pkg", "Which?", "pnpm", "npm")),
            wire_request(wire_question("wait", "Later?", "yes")),
        ],
        "timeout": 0.05,
        "messages": True,
    }
    out = drive(tmp_path, plan)
    found = results(out)
    assert found[0]["answer"] == {"answers": [{"id": "pkg", "selected": ["pnpm"]}]}
    assert found[1]["error"] == "ASK_TIMEOUT"
    assert found[1]["message"]
    assert read_reports(out)[-1] == ("DONE", None)


@pytest.mark.skipif(sys.platform == "win32", reason="the driver handles POSIX signals")
def test_the_driver_says_why_it_cannot_use_a_provider(tmp_path: Path) -> None:
    out = drive(
        tmp_path, {"provider": "no-such-provider", "requests": [sample_request().to_dict()]}
    )
    assert read_reports(out) == [
        ("USE", {"error": "PROVIDER_NOT_FOUND", "cause": None}),
        ("DONE", None),
    ]
