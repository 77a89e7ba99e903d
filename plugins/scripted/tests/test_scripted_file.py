"""The answers file: every answer form, the lookup order, and failing closed."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from user_interaction_scripted import (
    ANSWERS_ENV,
    INVALID_ANSWERS_FILE,
    UNANSWERED_QUESTION,
    AnswersFileProvider,
)

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    PROVIDER_ENV,
    PROVIDER_LOAD_FAILED,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)

README = Path(__file__).resolve().parent.parent / "README.md"

PKG = AskUserQuestionItem("pkg", "Which package manager?", options=[AskUserQuestionOption("pnpm")])
TOOLS = AskUserQuestionItem(
    "tools",
    "Which tools?",
    options=[AskUserQuestionOption(label) for label in ("ruff", "mypy", "pytest")],
    multi_select=True,
)
NAME = AskUserQuestionItem("name", "What is your name?")
DROP = AskUserQuestionItem("drop", "Drop table users?", options=[AskUserQuestionOption("Yes")])


@pytest.fixture
def answers_file(tmp_path: Path) -> Any:
    path = tmp_path / "answers.json"

    def write(data: object) -> Path:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return path

    return write


def ask(provider: Any, *items: AskUserQuestionItem, **kwargs: Any) -> Any:
    with UserInteraction() as ui:
        ui.register_provider(provider)
        return ui.ask_sync(AskUserQuestionRequest(list(items)), **kwargs)


def error_of(provider: Any, *items: AskUserQuestionItem, **kwargs: Any) -> UserInteractionError:
    with pytest.raises(UserInteractionError) as info:
        ask(provider, *items, **kwargs)
    return info.value


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("pnpm", AskUserQuestionAnswerItem("pkg", ["pnpm"])),
        (["pnpm"], AskUserQuestionAnswerItem("pkg", ["pnpm"])),
        ([], AskUserQuestionAnswerItem("pkg")),
        ({"custom": "yarn"}, AskUserQuestionAnswerItem("pkg", custom="yarn")),
        ({"skip": True}, AskUserQuestionAnswerItem("pkg")),
        ({"first_option": True}, AskUserQuestionAnswerItem("pkg", ["pnpm"])),
        ({"selected": "pnpm"}, AskUserQuestionAnswerItem("pkg", ["pnpm"])),
        ({"selected": []}, AskUserQuestionAnswerItem("pkg")),
        (
            {"selected": "pnpm", "notes": "pin the version"},
            AskUserQuestionAnswerItem("pkg", ["pnpm"], notes="pin the version"),
        ),
        (
            {"notes": "the usual", "first_option": True},
            AskUserQuestionAnswerItem("pkg", ["pnpm"], notes="the usual"),
        ),
    ],
)
def test_answer_forms(answers_file: Any, answer: object, expected: Any) -> None:
    provider = AnswersFileProvider(answers_file({"answers": {"pkg": answer}}))
    assert ask(provider, PKG).answers == (expected,)


def test_notes_on_a_multi_select_question(answers_file: Any) -> None:
    path = answers_file({"answers": {"tools": {"selected": ["mypy", "ruff"], "notes": "strict"}}})
    answer = ask(AnswersFileProvider(path), TOOLS)
    assert answer.answers == (AskUserQuestionAnswerItem("tools", ["mypy", "ruff"], notes="strict"),)


def test_notes_on_a_question_without_options_fail_closed(answers_file: Any) -> None:
    path = answers_file({"answers": {"name": {"selected": "Ada", "notes": "n"}}})
    error = error_of(AnswersFileProvider(path), NAME)
    assert error.code == UNANSWERED_QUESTION
    assert "has no options, so notes cannot go beside a selection" in error.message


def test_several_questions_omit_and_free_text(answers_file: Any) -> None:
    path = answers_file(
        {"answers": {"tools": ["mypy", "ruff"], "name": "Ada", "pkg": {"omit": True}}}
    )
    answer = ask(AnswersFileProvider(path), PKG, TOOLS, NAME)
    assert answer.answers == (
        AskUserQuestionAnswerItem("tools", ["mypy", "ruff"]),
        AskUserQuestionAnswerItem("name", custom="Ada"),
    )


@pytest.mark.parametrize("code", [ASK_CANCELLED, ASK_DECLINED])
def test_error_answers(answers_file: Any, code: str) -> None:
    path = answers_file({"default": {"error": code, "message": "No."}})
    error = error_of(AnswersFileProvider(path), PKG)
    assert (error.code, error.message) == (code, "No.")


def test_lookup_order(answers_file: Any) -> None:
    path = answers_file(
        {
            "answers": {"pkg": "pnpm"},
            "patterns": {"(?i)drop|package": {"error": "ASK_DECLINED"}, "users": "Yes"},
            "default": {"skip": True},
        }
    )
    provider = AnswersFileProvider(path)
    answer = ask(provider, PKG, NAME)
    assert answer.answers == (  # the id wins over the pattern; the rest get the default
        AskUserQuestionAnswerItem("pkg", ["pnpm"]),
        AskUserQuestionAnswerItem("name"),
    )
    assert error_of(provider, DROP).code == ASK_DECLINED  # the first pattern in the file


def test_delay_and_silent(answers_file: Any) -> None:
    path = answers_file({"answers": {"name": {"silent": True}}, "delay": 0.05})
    provider = AnswersFileProvider(path)
    assert error_of(provider, NAME, timeout=0.2).code == ASK_TIMEOUT
    path.write_text(json.dumps({"delay": 30, "default": "Ada"}))
    assert error_of(provider, NAME, timeout=0.1).code == ASK_TIMEOUT


def test_unanswered_questions_fail_closed(answers_file: Any) -> None:
    path = answers_file({"answers": {"pkg": "npm"}})
    error = error_of(AnswersFileProvider(path), NAME)
    assert error.code == UNANSWERED_QUESTION
    assert error.message.startswith(
        f"{path}: No answer is scripted for question 'name' ('What is your name?')"
    )
    error = error_of(AnswersFileProvider(path), PKG)
    assert error.code == UNANSWERED_QUESTION
    assert "'npm' for question 'pkg'" in error.message
    assert "is not one of its options ('pnpm')" in error.message


def test_the_file_is_read_again_at_every_ask(answers_file: Any) -> None:
    path = answers_file({"answers": {"name": "Ada"}})
    provider = AnswersFileProvider(path)
    assert ask(provider, NAME).get("name").custom == "Ada"
    answers_file({"answers": {"name": "Grace"}})
    assert ask(provider, NAME).get("name").custom == "Grace"
    answers_file("{oops")
    error = error_of(provider, NAME)
    assert error.code == INVALID_ANSWERS_FILE
    path.unlink()
    error = error_of(provider, NAME)
    assert error.code == INVALID_ANSWERS_FILE
    assert "cannot read the answers file" in error.message


def test_dispose_ends_pending_asks(answers_file: Any) -> None:
    """A silent answer waits on the ask's signal, which disposal fires."""
    path = answers_file({"default": {"silent": True}})
    waiting = threading.Event()

    class Watched(AnswersFileProvider):
        async def ask(self, request: AskUserQuestionRequest) -> object:
            waiting.set()
            return await super().ask(request)

    provider = Watched(path)

    async def main() -> None:
        with UserInteraction() as ui:
            disposer = ui.register_provider(provider)
            task = asyncio.ensure_future(ui.ask(AskUserQuestionRequest([NAME])))
            assert await asyncio.to_thread(waiting.wait, 60)
            disposer()
            with pytest.raises(UserInteractionError) as info:
                await asyncio.wait_for(task, 60)
            assert info.value.code == PROVIDER_DISPOSED

    asyncio.run(main())
    answers_file({"default": "Ada"})  # the provider serves again once registered anew
    assert ask(provider, NAME).get("name").custom == "Ada"


BAD = [
    ("[]", "expected an object, got an array"),
    ("{oops", "not valid JSON: Expecting property name enclosed in double quotes (line 1"),
    ('{"answers": {"a": "x", "a": "y"}}', 'not valid JSON: duplicate key "a"'),
    ('{"answer": {}}', "answer: unknown key (expected answers, patterns, default, delay)"),
    ('{"answers": []}', "answers: expected an object, got an array"),
    ('{"answers": {"pkg": 3}}', "answers.pkg: expected a string, an array of labels or an"),
    ('{"answers": {"pkg": " "}}', 'answers.pkg: a blank answer; use {"skip": true}'),
    ('{"answers": {"a b": [1]}}', 'answers["a b"][0]: expected a label string, got a number'),
    ('{"answers": {"pkg": {"costum": "x"}}}', 'answers.pkg: unknown key "costum" (expected'),
    ('{"answers": {"pkg": {"custom": ""}}}', "answers.pkg.custom: expected non-blank text"),
    ('{"answers": {"pkg": {"skip": false}}}', "answers.pkg.skip: expected true, got false"),
    ('{"answers": {"pkg": {"skip": true, "omit": true}}}', "answers.pkg: expected an object"),
    ('{"answers": {"pkg": {"selected": "x", "notes": " "}}}', "answers.pkg.notes: expected non-"),
    ('{"answers": {"pkg": {"selected": "x", "notes": 1}}}', "answers.pkg.notes: expected non-"),
    (
        '{"answers": {"pkg": {"selected": [], "notes": "n"}}}',
        "answers.pkg.selected: notes need at least one label beside them",
    ),
    ('{"answers": {"pkg": {"selected": 2}}}', "answers.pkg.selected: expected a label or an"),
    ('{"answers": {"pkg": {"selected": [2]}}}', "answers.pkg.selected[0]: expected a label"),
    (
        '{"answers": {"pkg": {"custom": "x", "notes": "n"}}}',
        'answers.pkg: notes go beside a selection: expected {"selected": labels, "notes": '
        'text} or {"first_option": true, "notes": text}, got the keys custom, notes',
    ),
    ('{"answers": {"pkg": {"notes": "n"}}}', "answers.pkg: notes go beside a selection"),
    (
        '{"answers": {"pkg": {"selected": "x", "skip": true}}}',
        'answers.pkg: expected {"selected": labels}, optionally with notes, got selected, skip',
    ),
    ('{"default": {"first_option": false, "notes": "n"}}', "default: notes go beside a"),
    ('{"default": {"error": "ASK_CANCELED"}}', "default.error: expected an error code such"),
    ('{"default": {"error": "ASK_DECLINED", "message": 1}}', "default.message: expected a"),
    ('{"patterns": {"(": "x"}}', 'patterns["("]: not a regular expression'),
    ('{"delay": -1}', "delay: expected a non-negative number of seconds, got -1"),
    ('{"delay": true}', "delay: expected a non-negative number of seconds, got True"),
    ('{"delay": Infinity}', "delay: expected a non-negative number of seconds, got inf"),
]


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_malformed_files_name_the_place(answers_file: Any, text: str, problem: str) -> None:
    path = answers_file(text)
    with pytest.raises(UserInteractionError) as info:
        AnswersFileProvider(path)
    assert info.value.code == INVALID_ANSWERS_FILE
    assert info.value.message.startswith(f"{path}: {problem}")


def test_missing_file_and_unset_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers_file: Any
) -> None:
    with pytest.raises(UserInteractionError, match="cannot read the answers file") as info:
        AnswersFileProvider(tmp_path / "missing.json")
    assert info.value.code == INVALID_ANSWERS_FILE
    monkeypatch.delenv(ANSWERS_ENV, raising=False)
    with pytest.raises(UserInteractionError, match=f"^{ANSWERS_ENV} is not set") as info:
        AnswersFileProvider()
    assert info.value.code == INVALID_ANSWERS_FILE
    monkeypatch.setenv(ANSWERS_ENV, str(answers_file({"default": "x"})))
    provider = AnswersFileProvider()
    assert provider.path == tmp_path / "answers.json"
    assert repr(provider) == f"<AnswersFileProvider {str(provider.path)!r}>"


def test_use_scripted_through_the_entry_point(
    monkeypatch: pytest.MonkeyPatch, answers_file: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv(PROVIDER_ENV, "scripted")
    monkeypatch.setenv(ANSWERS_ENV, str(answers_file({"answers": {"name": "Ada"}})))
    with UserInteraction() as ui:
        assert "scripted" in [info.name for info in ui.providers()]
        ui.use()
        assert isinstance(ui.provider, AnswersFileProvider)
        answer = ui.ask_sync(AskUserQuestionRequest([NAME]))
        assert answer.get("name").custom == "Ada"
    monkeypatch.setenv(ANSWERS_ENV, str(tmp_path / "missing.json"))
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use("scripted")
    assert info.value.code == PROVIDER_LOAD_FAILED
    cause = info.value.__cause__
    assert isinstance(cause, UserInteractionError)
    assert cause.code == INVALID_ANSWERS_FILE


def test_readme_examples_are_valid(tmp_path: Path) -> None:
    blocks = re.findall(r"```json\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks
    for n, block in enumerate(blocks):
        path = tmp_path / f"readme{n}.json"
        path.write_text(block, encoding="utf-8")
        AnswersFileProvider(path)
