"""Form elicitation against the SDK's own client side, over the in-process transport:
one form per request, its schema, and every kind of reply."""

from __future__ import annotations

import re
from typing import Any

import pytest
from acp_support import RecordingAgent, in_process, prompt_text, run
from user_interaction_acp import AcpProvider

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    INVALID_ANSWER,
    AskUserQuestionAnswer,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import wire_question as question

PKG = question(
    "pkg",
    "Which package manager?",
    "pnpm",
    "npm",
    header="Package",
    detail="The lockfile decides.",
    descriptions={"pnpm": "fast, strict"},
)
LINT = question("lint", "Which linters?", "ruff", "flake8", "pylint", multi=True)
NAME = question("name", "Project name?")


def answers(outcome: Any) -> dict[str, dict[str, Any]]:
    assert isinstance(outcome, AskUserQuestionAnswer), outcome
    return {item["id"]: item for item in outcome.to_dict()["answers"]}


def ask_once(*questions: dict[str, Any], reply: Any) -> tuple[Any, Any, Any]:
    """Ask ``questions`` in one prompt turn; ``reply(form)`` answers the form. Returns the
    ask's outcome, the form and the client."""

    async def scenario() -> tuple[Any, Any, Any]:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(*questions))
            form = await harness.client.next_form()
            reply(form)
            outcome = await harness.agent.next_outcome()
            await turn
            assert harness.client.requests.empty()  # one round trip for the whole request
            return outcome, form, harness.client

    return run(scenario())


def test_one_form_carries_every_question_with_titles_descriptions_and_options() -> None:
    outcome, form, client = ask_once(
        PKG, LINT, NAME, reply=lambda form: form.accept({"q1_pkg": "npm"})
    )
    assert len(client.request_ids("elicitation/create")) == 1
    assert form.params["mode"] == "form"
    assert form.params["sessionId"]
    assert form.params["message"] == "The agent has 3 questions for you."
    assert form.properties == {
        "q1_pkg": {
            "type": "string",
            "title": "Package: Which package manager?",
            "description": "The lockfile decides.",
            "oneOf": [
                {"const": "pnpm", "title": "pnpm", "description": "fast, strict"},
                {"const": "npm", "title": "npm"},
            ],
        },
        "q1_pkg_custom": {
            "type": "string",
            "title": "Other answer",
            "description": 'Your own answer to "Package", used instead of the choice.',
        },
        "q2_lint": {
            "type": "array",
            "title": "Which linters?",
            "items": {
                "anyOf": [
                    {"const": "ruff", "title": "ruff"},
                    {"const": "flake8", "title": "flake8"},
                    {"const": "pylint", "title": "pylint"},
                ]
            },
        },
        "q2_lint_custom": {
            "type": "string",
            "title": "Other answer",
            "description": 'Your own answer to "Which linters?", used instead of the choice.',
        },
        "q3_name": {"type": "string", "title": "Project name?"},
    }
    assert list(form.properties) == [
        "q1_pkg",
        "q1_pkg_custom",
        "q2_lint",
        "q2_lint_custom",
        "q3_name",
    ]
    assert "required" not in form.schema
    assert answers(outcome)["pkg"] == {"id": "pkg", "selected": ["npm"]}


def test_a_single_question_is_the_message() -> None:
    _, form, _ = ask_once(NAME, reply=lambda form: form.accept({}))
    assert form.params["message"] == "Project name?"


def test_accept_maps_choices_multi_choices_and_text() -> None:
    outcome, _, _ = ask_once(
        PKG,
        LINT,
        NAME,
        reply=lambda form: form.accept(
            {"q1_pkg": "pnpm", "q2_lint": ["pylint", "ruff"], "q3_name": "  demo  "}
        ),
    )
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": ["pnpm"]},
        "lint": {"id": "lint", "selected": ["pylint", "ruff"]},
        "name": {"id": "name", "selected": [], "custom": "demo"},
    }


def test_custom_text_overrides_the_choice_and_blank_text_counts_as_none() -> None:
    outcome, _, _ = ask_once(
        PKG,
        LINT,
        reply=lambda form: form.accept(
            {
                "q1_pkg": "pnpm",
                "q1_pkg_custom": "bun",
                "q2_lint": ["ruff"],
                "q2_lint_custom": "   ",
            }
        ),
    )
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": [], "custom": "bun"},
        "lint": {"id": "lint", "selected": ["ruff"]},
    }


def test_questions_left_empty_are_skipped() -> None:
    outcome, _, _ = ask_once(
        PKG,
        LINT,
        NAME,
        reply=lambda form: form.accept({"q1_pkg": "", "q2_lint": [], "q3_name": " "}),
    )
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": []},
        "lint": {"id": "lint", "selected": []},
        "name": {"id": "name", "selected": []},
    }
    outcome, _, _ = ask_once(PKG, NAME, reply=lambda form: form.accept(None))
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": []},
        "name": {"id": "name", "selected": []},
    }


def test_a_repeated_label_in_a_multi_select_counts_once() -> None:
    outcome, _, _ = ask_once(
        LINT, reply=lambda form: form.accept({"q1_lint": ["ruff", "ruff", "flake8"]})
    )
    assert answers(outcome)["lint"]["selected"] == ["ruff", "flake8"]


@pytest.mark.parametrize(
    ("reply", "code", "message"),
    [
        (lambda form: form.decline(), ASK_DECLINED, "declined"),
        (lambda form: form.cancel(), ASK_CANCELLED, "dismissed"),
    ],
    ids=["decline", "cancel"],
)
def test_decline_and_cancel(reply: Any, code: str, message: str) -> None:
    outcome, _, client = ask_once(PKG, reply=reply)
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == code
    assert message in outcome.message
    reported = client.reply_of(next(iter(client.messages)))
    assert reported["error"]["code"] == code


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"q1_pkg": "yarn"},
            "The ACP client's answer to question 'pkg' (field 'q1_pkg') is 'yarn', which was "
            "not offered (offered: 'pnpm', 'npm').",
        ),
        (
            {"q1_pkg": "PNPM"},
            "The ACP client's answer to question 'pkg' (field 'q1_pkg') is 'PNPM', which was "
            "not offered (offered: 'pnpm', 'npm').",
        ),
        (
            {"q2_lint": ["ruff", "black"]},
            "The ACP client's answer to question 'lint' (field 'q2_lint') is 'black', which "
            "was not offered (offered: 'ruff', 'flake8', 'pylint').",
        ),
        (
            {"q1_pkg": 1},
            "The ACP client's answer to question 'pkg' (field 'q1_pkg') must be one of the "
            "offered labels, got a number.",
        ),
        (
            {"q1_pkg": ["pnpm"]},
            "The ACP client's answer to question 'pkg' (field 'q1_pkg') must be one of the "
            "offered labels, got an array.",
        ),
        (
            {"q2_lint": "ruff"},
            "The ACP client's answer to question 'lint' (field 'q2_lint') must be an array of "
            "offered labels, got a string.",
        ),
        (
            {"q2_lint": [True]},
            "The ACP client's answer to question 'lint' (field 'q2_lint') must contain only "
            "offered labels, got a boolean.",
        ),
        (
            {"q1_pkg_custom": {"text": "bun"}},
            "The ACP client's answer to question 'pkg' (field 'q1_pkg_custom') must be text, "
            "got an object.",
        ),
        (
            {"q3_name": 42},
            "The ACP client's answer to question 'name' (field 'q3_name') must be text, got "
            "a number.",
        ),
        (
            {"pkg": "pnpm"},
            "The ACP client answered the field 'pkg', which the form did not contain (its "
            "fields: 'q1_pkg', 'q1_pkg_custom', 'q2_lint', 'q2_lint_custom', 'q3_name').",
        ),
    ],
    ids=[
        "label-not-offered",
        "label-case",
        "multi-label-not-offered",
        "number-for-choice",
        "array-for-single",
        "text-for-multi",
        "boolean-in-multi",
        "object-for-custom",
        "number-for-text",
        "unknown-field",
    ],
)
def test_values_that_were_not_offered_never_reach_the_caller(
    content: dict[str, Any], expected: str
) -> None:
    outcome, _, client = ask_once(PKG, LINT, NAME, reply=lambda form: form.accept(content))
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == INVALID_ANSWER
    assert outcome.message == expected
    assert client.reply_of(next(iter(client.messages)))["error"]["code"] == INVALID_ANSWER


@pytest.mark.parametrize(
    "ids",
    [
        ["a.b", "a b", "a-b", "a_b"],
        ["q1", "q1_custom", "custom", "_custom"],
        ["!!!", "ü", "😀", "_"],
        ["x" * 200, "x" * 200 + "y", "Ünïcödé ✓", 'quote"and<tag>'],
        ["1", "11", "1_1", "q2"],
    ],
    ids=["punctuation", "lookalikes", "no-ascii", "long-and-markup", "digits"],
)
def test_field_names_are_unique_and_safe_for_any_id(ids: list[str]) -> None:
    questions = [question(qid, f"Question {n}?", "yes", "no") for n, qid in enumerate(ids)]

    def reply(form: Any) -> None:
        names = list(form.properties)
        assert len(set(names)) == 2 * len(ids)
        for name in names:
            assert re.fullmatch(r"q[0-9]+(_[A-Za-z0-9_]*)?", name), name
            assert len(name) <= 48, name
        # each question's choice field comes first of its pair: answer the n-th by position
        form.accept({name: "yes" if n % 2 else "no" for n, name in enumerate(names[::2])})

    outcome, _, _ = ask_once(*questions, reply=reply)
    assert {key: value["selected"] for key, value in answers(outcome).items()} == {
        qid: ["yes" if n % 2 else "no"] for n, qid in enumerate(ids)
    }


# -- previews and notes --------------------------------------------------------------------

PREVIEWED = question("layout", "Which layout?", "grid", "list", "none")
PREVIEWED["options"][0].update(
    description="two columns", preview="```\n+--+--+\n|  |  |\n```\n\n\n\nside by side  "
)
PREVIEWED["options"][1]["preview"] = "- a\n- b"
PREVIEWED["options"][2]["preview"] = " \n "


@pytest.mark.parametrize("multi", [False, True], ids=["single", "multi"])
def test_previews_are_plain_text_in_the_option_descriptions(multi: bool) -> None:
    asked = {**PREVIEWED, "multiSelect": True} if multi else PREVIEWED
    outcome, form, _ = ask_once(
        asked, reply=lambda form: form.accept({"q1_layout": ["list"] if multi else "list"})
    )
    field = form.properties["q1_layout"]
    options = field["items"]["anyOf"] if multi else field["oneOf"]
    assert options == [
        {
            "const": "grid",
            "title": "grid",
            "description": "two columns\n\n+--+--+\n|  |  |\n\nside by side",
        },
        {"const": "list", "title": "list", "description": "- a\n- b"},
        {"const": "none", "title": "none"},  # a blank preview adds nothing
    ]
    assert answers(outcome)["layout"] == {"id": "layout", "selected": ["list"]}
    assert "q1_layout_notes" not in form.properties  # notes are off by default


def test_a_long_preview_is_cut_to_the_limit() -> None:
    from user_interaction_acp._form import PREVIEW_LIMIT

    long = question("big", "Which one?", "a", "b")
    long["options"][0]["preview"] = "x" * 10_000
    _, form, _ = ask_once(long, reply=lambda form: form.accept({}))
    description = form.properties["q1_big"]["oneOf"][0]["description"]
    assert len(description) == PREVIEW_LIMIT
    assert description == "x" * (PREVIEW_LIMIT - 1) + "…"


class NotesAgent(RecordingAgent):  # type: ignore[misc]
    """The recording agent with the provider's notes fields on."""

    def __init__(self) -> None:
        super().__init__()
        self.ui.close()
        self.ui = UserInteraction()
        self.ui.register_provider(AcpProvider(notes=True))


def ask_with_notes(*questions: dict[str, Any], reply: Any) -> tuple[Any, Any]:
    async def scenario() -> tuple[Any, Any]:
        async with in_process(agent=NotesAgent()) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(*questions))
            form = await harness.client.next_form()
            reply(form)
            outcome = await harness.agent.next_outcome()
            await turn
            return outcome, form

    return run(scenario())


def test_notes_fields_are_offered_when_turned_on() -> None:
    _, form = ask_with_notes(PKG, LINT, NAME, reply=lambda form: form.accept({}))
    assert list(form.properties) == [
        "q1_pkg",
        "q1_pkg_custom",
        "q1_pkg_notes",
        "q2_lint",
        "q2_lint_custom",
        "q2_lint_notes",
        "q3_name",  # a free-text question has nothing to add notes to
    ]
    assert form.properties["q1_pkg_notes"] == {
        "type": "string",
        "title": "Notes",
        "description": 'Notes beside your choice for "Package", such as a condition or a '
        "detail to keep in mind.",
    }
    assert "required" not in form.schema


def test_notes_come_back_beside_single_and_multi_selections() -> None:
    outcome, _ = ask_with_notes(
        PKG,
        LINT,
        PREVIEWED,
        reply=lambda form: form.accept(
            {
                "q1_pkg": "npm",
                "q1_pkg_notes": "  pin the version ",
                "q2_lint": ["ruff", "pylint"],
                "q2_lint_notes": "only ruff in CI",
                "q3_layout": "grid",
                "q3_layout_notes": "   ",
            }
        ),
    )
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": ["npm"], "notes": "pin the version"},
        "lint": {"id": "lint", "selected": ["ruff", "pylint"], "notes": "only ruff in CI"},
        "layout": {"id": "layout", "selected": ["grid"]},  # blank notes count as none
    }


def test_notes_without_a_selection_are_kept_as_the_humans_own_answer() -> None:
    outcome, _ = ask_with_notes(
        PKG,
        LINT,
        reply=lambda form: form.accept(
            {
                "q1_pkg_notes": "whatever CI uses",
                "q2_lint": ["ruff"],
                "q2_lint_custom": "black",
                "q2_lint_notes": "and isort",
            }
        ),
    )
    assert answers(outcome) == {
        "pkg": {"id": "pkg", "selected": [], "custom": "whatever CI uses"},
        "lint": {"id": "lint", "selected": [], "custom": "black\n\nand isort"},
    }


def test_notes_of_the_wrong_type_never_reach_the_caller() -> None:
    outcome, _ = ask_with_notes(
        PKG, reply=lambda form: form.accept({"q1_pkg": "npm", "q1_pkg_notes": ["x"]})
    )
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == INVALID_ANSWER
    assert outcome.message == (
        "The ACP client's answer to question 'pkg' (field 'q1_pkg_notes') must be text, got "
        "an array."
    )


def test_the_notes_option_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="notes must be True or False, got 'yes'"):
        AcpProvider(notes="yes")  # type: ignore[arg-type]
    assert repr(AcpProvider(notes=True)) == "<AcpProvider notes>"
    assert AcpProvider().notes is False
