"""The provider selected the way CI selects it: environment variables, in a new process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

CHILD = textwrap.dedent(
    """
    import json, sys
    from user_interaction import AskUserQuestionRequest, UserInteraction, UserInteractionError

    with UserInteraction() as ui:
        try:
            ui.use()  # no name: USER_INTERACTION_PROVIDER decides
        except UserInteractionError as exc:
            cause = exc.__cause__
            print(json.dumps({"use": exc.code, "cause": getattr(cause, "code", None)}))
            sys.exit(0)
        for data in json.loads(sys.argv[1]):
            try:
                answer = ui.ask_sync(AskUserQuestionRequest.from_dict(data))
            except UserInteractionError as exc:
                print(json.dumps({"error": exc.code, "message": exc.message}))
            else:
                print(json.dumps(answer.to_dict()))
    """
)

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
    env = dict(os.environ)
    env["USER_INTERACTION_PROVIDER"] = "scripted"
    env["USER_INTERACTION_ANSWERS"] = str(answers)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(REQUESTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [json.loads(line) for line in result.stdout.splitlines()]


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
