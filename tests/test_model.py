from __future__ import annotations

from typing import Any

import attrs
import pytest

from user_interaction import (
    INVALID_REQUEST,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteractionError,
)


def test_classes_are_frozen_slotted_and_convert_lists_to_tuples() -> None:
    option = AskUserQuestionOption("pnpm", "fast")
    item = AskUserQuestionItem("pkg", "Which?", options=[option])
    request = AskUserQuestionRequest([item])
    answer = AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["pnpm"])])
    for value in (option, item, request, answer, answer.answers[0]):
        assert attrs.has(type(value))
        assert not hasattr(value, "__dict__")
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            value.x = 1  # type: ignore[union-attr]
    assert item.options == (option,)
    assert request.questions == (item,)
    assert answer.answers[0].selected == ("pnpm",)


def test_defaults() -> None:
    item = AskUserQuestionItem("id", "q")
    assert (item.header, item.options, item.multi_select, item.detail) == (None, (), False, None)
    assert AskUserQuestionOption("x").description is None
    request = AskUserQuestionRequest([])
    assert (request.questions, request.agent, request.signal) == ((), None, None)
    answer_item = AskUserQuestionAnswerItem("id")
    assert (answer_item.selected, answer_item.custom) == ((), None)


def test_wire_form_uses_camel_case_and_omits_absent_optionals() -> None:
    item = AskUserQuestionItem(
        "pkg",
        "Which package manager?",
        header="Tooling",
        options=[AskUserQuestionOption("pnpm", "fast"), AskUserQuestionOption("npm")],
        multi_select=True,
        detail="We need one.",
    )
    assert item.to_dict() == {
        "id": "pkg",
        "question": "Which package manager?",
        "header": "Tooling",
        "options": [{"label": "pnpm", "description": "fast"}, {"label": "npm"}],
        "multiSelect": True,
        "detail": "We need one.",
    }
    assert AskUserQuestionItem("a", "b").to_dict() == {"id": "a", "question": "b"}


def test_request_wire_form_never_carries_agent_or_signal() -> None:
    signal = AbortController().signal
    request = AskUserQuestionRequest([AskUserQuestionItem("a", "b")], agent="me", signal=signal)
    assert request.to_dict() == {"questions": [{"id": "a", "question": "b"}]}
    again = AskUserQuestionRequest.from_dict(request.to_dict())
    assert again == request  # agent and signal take no part in equality
    assert again.signal is None
    assert AskUserQuestionRequest.from_dict(request.to_dict(), signal=signal).signal is signal


def test_answer_wire_form_always_writes_selected() -> None:
    answer = AskUserQuestionAnswer(
        [
            AskUserQuestionAnswerItem("a", ["x", "y"]),
            AskUserQuestionAnswerItem("b", custom="mine"),
            AskUserQuestionAnswerItem("c"),
        ]
    )
    assert answer.to_dict() == {
        "answers": [
            {"id": "a", "selected": ["x", "y"]},
            {"id": "b", "selected": [], "custom": "mine"},
            {"id": "c", "selected": []},
        ]
    }
    assert AskUserQuestionAnswer.from_dict(answer.to_dict()) == answer
    assert answer.get("b") == AskUserQuestionAnswerItem("b", custom="mine")
    assert answer.get("zzz") is None


def test_round_trip_of_a_full_request() -> None:
    data = {
        "questions": [
            {
                "id": "pkg",
                "question": "Which?",
                "header": "H",
                "options": [{"label": "a", "description": "d"}, {"label": "b"}],
                "multiSelect": True,
                "detail": "line 1\nline 2",
            },
            {"id": "name", "question": "Your name?"},
        ]
    }
    request = AskUserQuestionRequest.from_dict(data)
    assert request.questions[0].multi_select is True
    assert request.questions[0].options[1] == AskUserQuestionOption("b")
    assert request.to_dict() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "expected an object, got null"),
        ([], "expected an object, got an array"),
        ({}, "questions: required"),
        ({"questions": "x"}, "questions: expected an array, got a string"),
        ({"questions": [1]}, "questions[0]: expected an object, got a number"),
        ({"questions": [{"question": "q"}]}, "questions[0].id: required"),
        ({"questions": [{"id": 3, "question": "q"}]}, "questions[0].id: expected a string"),
        ({"questions": [{"id": "a"}]}, "questions[0].question: required"),
        (
            {"questions": [{"id": "a", "question": "q", "multiSelect": "yes"}]},
            "questions[0].multiSelect: expected a boolean, got a string",
        ),
        (
            {"questions": [{"id": "a", "question": "q", "options": [{"label": None}]}]},
            "questions[0].options[0].label: expected a string, got null",
        ),
        (
            {"questions": [{"id": "a", "question": "q", "options": [{"description": "d"}]}]},
            "questions[0].options[0].label: required",
        ),
        (
            {"questions": [{"id": "a", "question": "q", "multi_select": True}]},
            "questions[0].multi_select: unknown field",
        ),
        (
            {"questions": [{"id": "a", "question": "q", "header": 1}]},
            "questions[0].header: expected a string, got a number",
        ),
        ({"questions": [], "extra": 1}, "extra: unknown field"),
    ],
)
def test_from_dict_reports_the_path(data: object, message: str) -> None:
    with pytest.raises(UserInteractionError) as info:
        AskUserQuestionRequest.from_dict(data)
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.startswith(message)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"answers": [{"selected": []}]}, "answers[0].id: required"),
        ({"answers": [{"id": "a", "selected": [1]}]}, "answers[0].selected[0]: expected a string"),
        ({"answers": [{"id": "a", "custom": 5}]}, "answers[0].custom: expected a string"),
        ({"answers": {}}, "answers: expected an array, got an object"),
    ],
)
def test_answer_from_dict_reports_the_path(data: object, message: str) -> None:
    with pytest.raises(UserInteractionError) as info:
        AskUserQuestionAnswer.from_dict(data)
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.startswith(message)


def test_answer_item_from_dict_allows_missing_selected() -> None:
    parsed = AskUserQuestionAnswer.from_dict({"answers": [{"id": "a", "custom": "text"}]})
    assert parsed.answers[0] == AskUserQuestionAnswerItem("a", (), "text")


def test_previews_and_notes_default_to_none_and_travel_only_when_set() -> None:
    assert AskUserQuestionOption("x").preview is None
    assert AskUserQuestionAnswerItem("id").notes is None
    option = AskUserQuestionOption("pnpm", "fast", "```sh\npnpm install\n```")
    assert option.to_dict() == {
        "label": "pnpm",
        "description": "fast",
        "preview": "```sh\npnpm install\n```",
    }
    assert AskUserQuestionOption("npm", preview="npm ci").to_dict() == {
        "label": "npm",
        "preview": "npm ci",
    }
    noted = AskUserQuestionAnswerItem("pkg", ["npm"], notes="pin the version")
    assert noted.to_dict() == {"id": "pkg", "selected": ["npm"], "notes": "pin the version"}
    assert list(noted.to_dict()) == ["id", "selected", "notes"]
    # notes come before custom (an item with both is invalid, but its wire form is stable)
    both = AskUserQuestionAnswerItem("pkg", custom="yarn", notes="n").to_dict()
    assert list(both) == ["id", "selected", "notes", "custom"]


def test_previews_and_notes_round_trip() -> None:
    data = {
        "questions": [
            {
                "id": "layout",
                "question": "Which layout?",
                "options": [
                    {"label": "grid", "description": "d", "preview": "+--+--+\n|  |  |"},
                    {"label": "list", "preview": "- a\n- b"},
                    {"label": "none"},
                ],
                "multiSelect": True,
            }
        ]
    }
    request = AskUserQuestionRequest.from_dict(data)
    assert request.questions[0].options[1] == AskUserQuestionOption("list", None, "- a\n- b")
    assert request.to_dict() == data
    answer_data = {"answers": [{"id": "layout", "selected": ["grid"], "notes": "tighter"}]}
    answer = AskUserQuestionAnswer.from_dict(answer_data)
    assert answer.answers[0] == AskUserQuestionAnswerItem("layout", ("grid",), None, "tighter")
    assert answer.to_dict() == answer_data


def test_wire_data_without_previews_or_notes_is_unchanged() -> None:
    data = {
        "questions": [
            {"id": "pkg", "question": "Which?", "options": [{"label": "a", "description": "d"}]}
        ]
    }
    assert AskUserQuestionRequest.from_dict(data).to_dict() == data
    answers = {"answers": [{"id": "pkg", "selected": ["a"]}, {"id": "x", "selected": []}]}
    assert AskUserQuestionAnswer.from_dict(answers).to_dict() == answers


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {
                "questions": [
                    {"id": "a", "question": "q", "options": [{"label": "x", "preview": 1}]}
                ]
            },
            "questions[0].options[0].preview: expected a string, got a number",
        ),
        (
            {
                "questions": [
                    {"id": "a", "question": "q", "options": [{"label": "x", "previews": ""}]}
                ]
            },
            "questions[0].options[0].previews: unknown field (expected one of label, description, "
            "preview)",
        ),
    ],
)
def test_preview_from_dict_reports_the_path(data: object, message: str) -> None:
    with pytest.raises(UserInteractionError) as info:
        AskUserQuestionRequest.from_dict(data)
    assert info.value.code == INVALID_REQUEST
    assert info.value.message == message


def test_notes_from_dict_reports_the_path() -> None:
    with pytest.raises(UserInteractionError) as info:
        AskUserQuestionAnswer.from_dict({"answers": [{"id": "a", "selected": ["x"], "notes": []}]})
    assert info.value.code == INVALID_REQUEST
    assert info.value.message == "answers[0].notes: expected a string, got an array"
    # null is the same as absent, as for every optional field
    parsed = AskUserQuestionAnswer.from_dict({"answers": [{"id": "a", "notes": None}]})
    assert parsed.answers[0].notes is None


# -- constructors, as a Python user writes them ----------------------------------


def test_none_means_an_empty_sequence() -> None:
    item = AskUserQuestionItem("a", "Free text?", options=None)  # type: ignore[arg-type]
    assert item.options == ()
    answer = AskUserQuestionAnswerItem("a", selected=None, custom="typed")  # type: ignore[arg-type]
    assert answer.selected == ()


def test_a_plain_string_option_is_an_option_with_that_label() -> None:
    item = AskUserQuestionItem("pkg", "Which?", options=["pnpm", AskUserQuestionOption("npm")])
    assert item.options == (AskUserQuestionOption("pnpm"), AskUserQuestionOption("npm"))


def test_multi_select_is_a_bool() -> None:
    item = AskUserQuestionItem("a", "q", options=["x"], multi_select=None)  # type: ignore[arg-type]
    assert item.multi_select is False
    with pytest.raises(TypeError, match="multi_select: expected bool, got str"):
        AskUserQuestionItem("a", "q", options=["x"], multi_select="yes")  # type: ignore[arg-type]


WRONG_KINDS: list[tuple[Any, str]] = [
    (
        lambda: AskUserQuestionItem("a", "q", options=[1]),
        r"options\[0\]: expected AskUserQuestionOption or str, got int",
    ),
    (
        lambda: AskUserQuestionItem("a", "q", options="pnpm"),
        "options: expected a sequence of AskUserQuestionOption, got str",
    ),
    (
        lambda: AskUserQuestionRequest(["not an item"]),
        r"questions\[0\]: expected AskUserQuestionItem, got str",
    ),
    (lambda: AskUserQuestionRequest(None), "questions: expected a sequence"),
    (
        lambda: AskUserQuestionAnswerItem("a", selected=[1]),
        r"selected\[0\]: expected str, got int",
    ),
    (
        lambda: AskUserQuestionAnswer([{"id": "a"}]),
        r"answers\[0\]: expected AskUserQuestionAnswerItem, got dict",
    ),
]


@pytest.mark.parametrize(("build", "message"), WRONG_KINDS)
def test_an_element_of_the_wrong_kind_is_rejected_naming_the_field(
    build: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        build()
