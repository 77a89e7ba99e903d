"""The built-in extensions: AuditLog, PreAnswered and TraceLog."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from user_interaction import (
    ASK_DECLINED,
    EXTENSION_FAILED,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.extensions import (
    AUDIT_ENV,
    INVALID_ANSWERS_FILE,
    PREANSWERED_ENV,
    AnswersFile,
    AuditLog,
    PreAnswered,
    TraceLog,
)
from user_interaction.testing import UNANSWERED_QUESTION, ScriptedProvider

PKG = AskUserQuestionItem(
    "pkg", "Which package manager?", options=[AskUserQuestionOption(x) for x in ("npm", "pnpm")]
)
NAME = AskUserQuestionItem("name", "Your name?")
DEPLOY = AskUserQuestionItem(
    "deploy", "Deploy to production?", options=[AskUserQuestionOption(x) for x in ("Yes", "No")]
)
REQUEST = AskUserQuestionRequest([PKG, NAME])


def scripted(ui: UserInteraction, **answers: Any) -> ScriptedProvider:
    provider = ScriptedProvider(answers)
    ui.register_provider(provider)
    return provider


# -- AuditLog ---------------------------------------------------------------------------


def test_audit_log_writes_one_line_per_finished_ask(ui: UserInteraction, tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    scripted(ui, pkg="pnpm", name="Ada")
    ui.add_extension(AuditLog(path))
    answer = ui.ask_sync(REQUEST)
    ui.provider.answer(pkg="yarn")  # type: ignore[union-attr]
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(REQUEST)
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    assert first["provider"] == "scripted"
    assert first["request"] == REQUEST.to_dict()
    assert first["answer"] == answer.to_dict()
    assert "error" not in first
    assert first["time"].endswith("Z")
    assert first["seconds"] >= 0
    assert second["error"] == info.value.to_dict()
    assert "answer" not in second


def test_audit_log_lines_from_eight_threads_never_interleave(
    ui: UserInteraction, tmp_path: Path
) -> None:
    path = tmp_path / "audit.jsonl"
    scripted(ui, pkg="pnpm", name="x" * 5000)  # long lines: a torn write would show
    ui.add_extension(AuditLog(path))

    def worker() -> None:
        for _ in range(100):
            ui.ask_sync(REQUEST)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_bytes().split(b"\n")
    assert lines.pop() == b""
    assert len(lines) == 800
    for line in lines:
        assert json.loads(line)["answer"]["answers"][1]["custom"] == "x" * 5000


WRITER = textwrap.dedent(
    """
    import sys
    from user_interaction import AskUserQuestionItem, AskUserQuestionRequest, UserInteraction
    from user_interaction.testing import ScriptedProvider

    request = AskUserQuestionRequest([AskUserQuestionItem("name", "Name?")])
    with UserInteraction() as ui:  # the audit log comes from USER_INTERACTION_AUDIT
        ui.register_provider(ScriptedProvider({"name": sys.argv[1] * 3000}))
        for _ in range(300):
            ui.ask_sync(request)
    """
)


def test_audit_log_lines_from_three_processes_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    env = {**os.environ, AUDIT_ENV: str(path)}
    children = [
        subprocess.Popen([sys.executable, "-c", WRITER, letter], env=env) for letter in "abc"
    ]
    assert [child.wait(120) for child in children] == [0, 0, 0]
    counts = {"a": 0, "b": 0, "c": 0}
    for line in path.read_text().splitlines():
        custom = json.loads(line)["answer"]["answers"][0]["custom"]
        assert len(set(custom)) == 1
        counts[custom[0]] += 1
    assert counts == {"a": 300, "b": 300, "c": 300}


def test_the_audit_variable_turns_it_on_for_every_context(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv(AUDIT_ENV, str(path))
    for _ in range(2):
        with UserInteraction() as ui:
            scripted(ui, pkg="npm", name="Ada")
            ui.ask_sync(REQUEST)
    assert len(path.read_text().splitlines()) == 2


def test_an_unwritable_audit_path_fails_asks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(AUDIT_ENV, str(tmp_path / "no-such-dir" / "audit.jsonl"))
    with UserInteraction() as ui:
        scripted(ui, pkg="npm", name="Ada")
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(REQUEST)
    assert info.value.code == EXTENSION_FAILED
    assert f"unset {AUDIT_ENV}" in info.value.message


# -- PreAnswered ------------------------------------------------------------------------


@pytest.fixture
def answers(tmp_path: Path) -> Any:
    path = tmp_path / "answers.json"

    def write(data: object) -> Path:
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write


def test_pre_answered_asks_only_the_rest_and_merges_in_order(
    ui: UserInteraction, answers: Any
) -> None:
    provider = scripted(ui, name="Ada", deploy="No")
    ui.add_extension(PreAnswered(answers({"answers": {"pkg": {"selected": "pnpm"}}})))
    request = AskUserQuestionRequest([NAME, PKG, DEPLOY])
    answer = ui.ask_sync(request)
    assert provider.asked_ids == ["name", "deploy"]
    assert [item.id for item in answer.answers] == ["name", "pkg", "deploy"]
    assert answer.get("pkg") == AskUserQuestionAnswerItem("pkg", ["pnpm"])


def test_pre_answered_covering_everything_asks_nobody(ui: UserInteraction, answers: Any) -> None:
    finished: list[object] = []

    class Seen:
        from user_interaction import hookimpl

        @hookimpl
        def ask_finished(self, provider: str | None) -> None:
            finished.append(provider)

    ui.add_extension(PreAnswered(answers({"answers": {"name": "Bo"}, "default": {"omit": True}})))
    ui.add_extension(Seen())
    answer = ui.ask_sync(REQUEST)  # no provider registered at all
    assert answer.answers == (  # in the request's order; omit is answered as skipped
        AskUserQuestionAnswerItem("pkg"),
        AskUserQuestionAnswerItem("name", custom="Bo"),
    )
    assert finished == [None]


def test_pre_answered_error_rules_and_misfits(ui: UserInteraction, answers: Any) -> None:
    provider = scripted(ui, pkg="npm", name="Ada")
    path = answers({"patterns": {"(?i)deploy": {"error": "ASK_DECLINED", "message": "No."}}})
    ui.add_extension(PreAnswered(path))
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(AskUserQuestionRequest([PKG, DEPLOY]))
    assert (info.value.code, info.value.message) == (ASK_DECLINED, "No.")
    assert provider.requests == []
    answers({"answers": {"pkg": "yarn"}})  # read again at every ask; yarn is not offered
    assert ui.ask_sync(REQUEST).get("pkg").selected == ("npm",)  # so the human answers
    assert provider.asked_ids == ["pkg", "name"]


def test_the_pre_answered_variable(
    monkeypatch: pytest.MonkeyPatch, answers: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv(PREANSWERED_ENV, str(answers({"answers": {"pkg": "pnpm"}})))
    with UserInteraction() as ui:
        provider = scripted(ui, name="Ada")
        assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)
        assert provider.asked_ids == ["name"]
    monkeypatch.setenv(PREANSWERED_ENV, str(tmp_path / "missing.json"))
    with UserInteraction() as ui:
        scripted(ui, name="Ada")
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(REQUEST)
    assert info.value.code == EXTENSION_FAILED
    assert "cannot read the answers file" in info.value.message
    assert isinstance(info.value.__cause__, UserInteractionError)
    assert info.value.__cause__.code == INVALID_ANSWERS_FILE


def test_the_answers_file_engine(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"answers": {"pkg": ["npm"]}, "default": {"skip": true}, "delay": 1}')
    book = AnswersFile.read(path)
    assert (book.delay, book.ids, book.source) == (1.0, ("pkg",), str(path))
    assert book.ruling(PKG) == AskUserQuestionAnswerItem("pkg", ["npm"])
    assert book.ruling(NAME) == AskUserQuestionAnswerItem("name")
    misfit = AnswersFile.parse('{"answers": {"name": ["x"]}}').ruling(NAME)
    assert isinstance(misfit, UserInteractionError)
    assert misfit.code == UNANSWERED_QUESTION
    assert AnswersFile.parse("{}").ruling(NAME) is None
    with pytest.raises(UserInteractionError) as info:
        AnswersFile.parse("[]", source="here")
    assert (info.value.code, info.value.message) == (
        INVALID_ANSWERS_FILE,
        "here: expected an object, got an array",
    )


def test_the_scripted_provider_does_not_import_the_testing_kit() -> None:
    pytest.importorskip("user_interaction_scripted")
    code = (
        "import sys, user_interaction_scripted; "
        "print([m for m in sys.modules if m.startswith('user_interaction.testing')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# -- TraceLog ---------------------------------------------------------------------------


def test_trace_log(ui: UserInteraction, caplog: pytest.LogCaptureFixture) -> None:
    scripted(ui, pkg="npm", name="Ada")
    ui.add_extension(TraceLog(answers=True))
    with caplog.at_level(logging.INFO, logger="user_interaction.trace"):
        ui.ask_sync(REQUEST)
    (record,) = [r for r in caplog.records if r.name == "user_interaction.trace"]
    message = record.getMessage()
    assert message.startswith("ask provider=scripted questions=pkg,name duration=")
    assert "outcome=ANSWERED answers=" in message
