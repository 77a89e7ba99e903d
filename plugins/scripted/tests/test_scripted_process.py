"""The provider selected the way CI selects it: environment variables, in a new process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from user_interaction.testing.driver import read_reports, run_plan

REQUESTS = [
    {
        "questions": [
            {"id": "pkg", "question": "Which?", "options": [{"label": "pnpm"}, {"label": "npm"}]},
            {"id": "name", "question": "Name?"},
        ]
    },
    {"questions": [{"id": "deploy", "question": "Deploy now?"}]},
    {"questions": [{"id": "surprise", "question": "Something the file does not know?"}]},
]


def run_child(answers: Path) -> list[dict[str, Any]]:
    """Ask ``REQUESTS`` through ``use()`` in the testing kit's driver program: each answer,
    each failure as ``{"error", "message"}``, or why ``use()`` failed as ``{"use", "cause"}``."""
    env = dict(os.environ)
    env["USER_INTERACTION_PROVIDER"] = "scripted"
    env["USER_INTERACTION_ANSWERS"] = str(answers)
    out = run_plan({"requests": REQUESTS, "messages": True}, env=env)
    outcomes: list[dict[str, Any]] = []
    for kind, value in read_reports(out):
        if kind == "USE":
            outcomes.append({"use": value["error"], "cause": value["cause"]})
        elif kind == "RESULT":
            outcome = value.get("answer") or {"error": value["error"], "message": value["message"]}
            outcomes.append(outcome)
    return outcomes


def test_answers_from_the_file_and_fails_closed(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "answers": {"pkg": "npm", "name": {"custom": "Ada"}},
                "patterns": {"(?i)deploy": {"error": "ASK_DECLINED"}},
            }
        )
    )
    first, second, third = run_child(answers)
    assert first == {
        "answers": [
            {"id": "pkg", "selected": ["npm"]},
            {"id": "name", "selected": [], "custom": "Ada"},
        ]
    }
    assert second["error"] == "ASK_DECLINED"
    assert third["error"] == "UNANSWERED_QUESTION"
    assert "'surprise'" in third["message"]


def test_a_missing_file_fails_use(tmp_path: Path) -> None:
    assert run_child(tmp_path / "missing.json") == [
        {"use": "PROVIDER_LOAD_FAILED", "cause": "INVALID_ANSWERS_FILE"}
    ]
