from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from user_interaction import (
    EMPTY_QUESTIONS,
    INVALID_ANSWER,
    INVALID_REQUEST,
    NO_PROVIDER,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction._validation import validate_request

Opt = AskUserQuestionOption
Item = AskUserQuestionItem


class Recorder:
    """Returns a preset result and records whether it was ever asked."""

    def __init__(self, result: object = None) -> None:
        self.result = result
        self.asked = 0

    async def ask(self, request: AskUserQuestionRequest) -> Any:
        self.asked += 1
        return self.result


def ask_error(ui: UserInteraction, request: Any) -> UserInteractionError:
    with pytest.raises(UserInteractionError) as info:
        asyncio.run(ui.ask(request))
    return info.value


@pytest.mark.parametrize(
    ("questions", "code", "message"),
    [
        ([], EMPTY_QUESTIONS, "questions: at least one question"),
        ([Item("", "q")], INVALID_REQUEST, "questions[0].id: must not be blank"),
        ([Item("  ", "q")], INVALID_REQUEST, "questions[0].id: must not be blank"),
        ([Item(1, "q")], INVALID_REQUEST, "questions[0].id: expected a string"),  # type: ignore[arg-type]
        ([Item("a", " \n")], INVALID_REQUEST, "questions[0].question: must not be blank"),
        ([Item("a", None)], INVALID_REQUEST, "questions[0].question: expected a string"),  # type: ignore[arg-type]
        (
            [Item("pkg", "q"), Item("pkg", "r")],
            INVALID_REQUEST,
            "questions[1].id: duplicate id 'pkg'",
        ),
        (
            [Item("a", "q", options=[Opt("x"), Opt("x")])],
            INVALID_REQUEST,
            "questions[0].options[1].label: duplicate label 'x'",
        ),
        (
            [Item("a", "q", options=[Opt(" ")])],
            INVALID_REQUEST,
            "questions[0].options[0].label: must not be blank",
        ),
        (
            [Item("a", "q", options=[Opt(7)])],  # type: ignore[arg-type]
            INVALID_REQUEST,
            "questions[0].options[0].label: expected a string",
        ),
        (
            [Item("a", "q", multi_select=True)],
            INVALID_REQUEST,
            "questions[0].multi_select: a question without options cannot be multi-select",
        ),
        (
            [Item("a", "q", header=3)],  # type: ignore[arg-type]
            INVALID_REQUEST,
            "questions[0].header: expected a string",
        ),
        (
            [Item("a", "q", options=[Opt("x", preview=b"diff")])],  # type: ignore[arg-type]
            INVALID_REQUEST,
            "questions[0].options[0].preview: expected a string or None, got bytes",
        ),
        # NUL bytes are blank too; a lone surrogate is not Unicode (issue 15)
        ([Item("\x00\x00", "q")], INVALID_REQUEST, "questions[0].id: must not be blank"),
        ([Item("a", "\x00 \x00")], INVALID_REQUEST, "questions[0].question: must not be blank"),
        (
            [Item("a", "q", options=[Opt("\x00")])],
            INVALID_REQUEST,
            "questions[0].options[0].label: must not be blank",
        ),
        (
            [Item("a\ud800", "q")],
            INVALID_REQUEST,
            "questions[0].id: must be valid Unicode: it holds a lone surrogate",
        ),
        (
            [Item("a", "Deploy? \udfff")],
            INVALID_REQUEST,
            "questions[0].question: must be valid Unicode: it holds a lone surrogate",
        ),
        (
            [Item("a", "q", header="\ud83d")],
            INVALID_REQUEST,
            "questions[0].header: must be valid Unicode: it holds a lone surrogate",
        ),
        (
            [Item("a", "q", options=[Opt("x", "\udc00")])],
            INVALID_REQUEST,
            "questions[0].options[0].description: must be valid Unicode: it holds a lone",
        ),
    ],
)
def test_invalid_requests_never_reach_the_provider(
    ui: UserInteraction, questions: list[Any], code: str, message: str
) -> None:
    provider = Recorder()
    ui.register_provider(provider)
    error = ask_error(ui, AskUserQuestionRequest(questions))
    assert error.code == code
    assert error.message.startswith(message), error.message
    assert provider.asked == 0


def test_request_must_be_a_request(ui: UserInteraction) -> None:
    assert ask_error(ui, {"questions": []}).code == INVALID_REQUEST


def test_request_rules_come_before_the_provider_check(ui: UserInteraction) -> None:
    assert ask_error(ui, AskUserQuestionRequest([])).code == EMPTY_QUESTIONS
    assert ask_error(ui, AskUserQuestionRequest([Item("a", "q")])).code == NO_PROVIDER


QUESTIONS = [
    Item("pkg", "Which?", options=[Opt("pnpm"), Opt("npm")]),
    Item("tools", "Which tools?", options=[Opt("ruff"), Opt("mypy")], multi_select=True),
    Item("name", "Name?"),
]


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (None, "provider answer: expected AskUserQuestionAnswer, got NoneType"),
        ("pnpm", "provider answer: expected AskUserQuestionAnswer, got str"),
        ({"answers": [{"id": 1}]}, "provider answer: answers[0].id: expected a string"),
        ([AskUserQuestionAnswerItem("pkg")], "provider answer: expected AskUserQuestionAnswer"),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("zzz")]),
            "answers[0].id: 'zzz' was not asked",
        ),
        (
            AskUserQuestionAnswer(
                [AskUserQuestionAnswerItem("pkg"), AskUserQuestionAnswerItem("pkg")]
            ),
            "answers[1].id: 'pkg' is answered twice",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["yarn"])]),
            "answers[0].selected[0]: 'yarn' was not offered for question 'pkg'",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("tools", ["ruff", "ruff"])]),
            "answers[0].selected[1]: 'ruff' is selected twice",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["pnpm", "npm"])]),
            "answers[0].selected: question 'pkg' is single-select but 2 labels were selected",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["pnpm"], "mine")]),
            "answers[0]: custom text and selected labels are exclusive",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("name", custom="  ")]),
            "answers[0].custom: must not be blank",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("name", ["x"])]),
            "answers[0].selected: question 'name' has no options to select",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("name", custom=5)]),  # type: ignore[arg-type]
            "answers[0].custom: expected a string",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["npm"], notes=" \n")]),
            "answers[0].notes: must not be blank",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["npm"], notes=1)]),  # type: ignore[arg-type]
            "answers[0].notes: expected a string",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", notes="pin it")]),
            "answers[0].notes: notes go beside a selection, but nothing is selected",
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("name", custom="Ada", notes="x")]),
            "answers[0].notes: notes go beside a selection, but nothing is selected",
        ),
        (
            {"answers": [{"id": "tools", "selected": [], "notes": "none of them"}]},
            "answers[0].notes: notes go beside a selection, but nothing is selected",
        ),
        (
            AskUserQuestionAnswer(
                [
                    AskUserQuestionAnswerItem("pkg", ["npm"], notes="fine"),
                    AskUserQuestionAnswerItem("tools", ["ruff"], notes=""),
                ]
            ),
            "answers[1].notes: must not be blank",
        ),
    ],
)
def test_bad_answers_are_invalid_answer(ui: UserInteraction, result: object, message: str) -> None:
    ui.register_provider(Recorder(result))
    error = ask_error(ui, AskUserQuestionRequest(QUESTIONS))
    assert error.code == INVALID_ANSWER
    assert error.message.startswith(message), error.message


@pytest.mark.parametrize(
    "result",
    [
        AskUserQuestionAnswer([]),
        AskUserQuestionAnswer(
            [
                AskUserQuestionAnswerItem("tools", ["mypy", "ruff"]),
                AskUserQuestionAnswerItem("pkg", custom="yarn"),
                AskUserQuestionAnswerItem("name"),
            ]
        ),
        {"answers": [{"id": "pkg", "selected": ["npm"]}, {"id": "name", "custom": "Ada"}]},
        AskUserQuestionAnswer(
            [
                AskUserQuestionAnswerItem("pkg", ["npm"], notes="but pin the version"),
                AskUserQuestionAnswerItem("tools", ["mypy", "ruff"], notes="strict mode"),
            ]
        ),
        {"answers": [{"id": "tools", "selected": ["ruff"], "notes": "only ruff"}]},
    ],
)
def test_good_answers_pass(ui: UserInteraction, result: object) -> None:
    ui.register_provider(Recorder(result))
    answer = asyncio.run(ui.ask(AskUserQuestionRequest(QUESTIONS)))
    assert isinstance(answer, AskUserQuestionAnswer)
    if isinstance(result, dict):
        assert answer == AskUserQuestionAnswer.from_dict(result)
    else:
        assert answer == result


def test_requests_with_previews_reach_the_provider_unchanged(ui: UserInteraction) -> None:
    class Keeper(Recorder):
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            self.seen = request
            return AskUserQuestionAnswer([AskUserQuestionAnswerItem("a", ["x"], notes="n")])

    provider = Keeper()
    ui.register_provider(provider)
    item = Item("a", "q", options=[Opt("x", "d", "```py\nx = 1\n```"), Opt("y", preview="")])
    request = AskUserQuestionRequest([item])
    for _ in range(2):  # the second ask takes the remembered-valid path
        answer = asyncio.run(ui.ask(request))
        assert answer.answers[0].notes == "n"
        assert provider.seen.questions[0].options == item.options


# -- blank and invalid text, as properties (issue 15) ------------------------------------

_BLANK = st.text(alphabet=st.sampled_from(["\x00", " ", "\t", "\n", "\r", "\u3000"]))
_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)


@settings(max_examples=60, deadline=None)
@given(blank=_BLANK, field=st.sampled_from(["id", "question", "label"]))
def test_text_of_whitespace_and_nul_bytes_is_blank(blank: str, field: str) -> None:
    item = Item(
        blank if field == "id" else "a",
        blank if field == "question" else "q",
        options=[Opt(blank)] if field == "label" else [],
    )
    with pytest.raises(UserInteractionError) as info:
        validate_request(AskUserQuestionRequest([item]))
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.endswith(f"{field}: must not be blank")


@settings(max_examples=60, deadline=None)
@given(before=st.text(), surrogate=_SURROGATES, after=st.text())
def test_text_holding_a_lone_surrogate_is_invalid(before: str, surrogate: str, after: str) -> None:
    text = before + surrogate + after
    with pytest.raises(UserInteractionError) as info:
        validate_request(AskUserQuestionRequest([Item(text, "q")]))
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.startswith("questions[0].id: ")


@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",))))
def test_text_with_something_visible_besides_nul_bytes_is_valid(text: str) -> None:
    label = text + "x"
    validate_request(AskUserQuestionRequest([Item("a" + text, label, options=[Opt(label)])]))


# -- check_answer: the same rules, every problem, never raising ---------------------------


def test_check_answer_lists_every_problem_with_its_place() -> None:
    from user_interaction import Problem, check_answer

    request = AskUserQuestionRequest(QUESTIONS)
    answer = AskUserQuestionAnswer(
        [
            AskUserQuestionAnswerItem("pkg", ["yarn"]),
            AskUserQuestionAnswerItem("tools", ["ruff", "ruff"]),
            AskUserQuestionAnswerItem("zzz"),
        ]
    )
    problems = check_answer(request, answer)
    assert [str(problem) for problem in problems] == [
        "answers[0].selected[0]: 'yarn' was not offered for question 'pkg'",
        "answers[1].selected[1]: 'ruff' is selected twice",
        "answers[2].id: 'zzz' was not asked",
    ]
    assert problems[0] == Problem(
        "answers[0].selected[0]", "'yarn' was not offered for question 'pkg'", INVALID_ANSWER
    )
    assert problems[0].error().code == INVALID_ANSWER


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"answers": [{"id": "pkg", "selected": ["npm"]}]}, []),
        ({"answers": [{"id": 1}]}, ["answers[0].id: expected a string, got a number"]),
        ({"answers": "no"}, ["answers: expected an array, got a string"]),
        ([1, 2], ["expected AskUserQuestionAnswer, got list"]),
        (None, ["expected AskUserQuestionAnswer, got NoneType"]),
    ],
)
def test_check_answer_reads_wire_dicts_and_never_raises(
    answer: object, expected: list[str]
) -> None:
    from user_interaction import check_answer

    problems = check_answer(AskUserQuestionRequest(QUESTIONS), answer)
    assert [str(problem) for problem in problems] == expected


def test_check_answer_agrees_with_the_manager(ui: UserInteraction) -> None:
    """Whatever the manager refuses, check_answer reports first, in the same words."""
    from user_interaction import check_answer

    bad = AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["pnpm", "npm"])])
    ui.register_provider(Recorder(bad))
    error = ask_error(ui, AskUserQuestionRequest(QUESTIONS))
    assert error.message == str(check_answer(AskUserQuestionRequest(QUESTIONS), bad)[0])


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            AskUserQuestionAnswerItem("name", custom="\x00\x00"),
            "answers[0].custom: must not be blank",
        ),
        (
            AskUserQuestionAnswerItem("name", custom="Z\udcfcrich"),
            "answers[0].custom: must be valid Unicode: it holds a lone surrogate",
        ),
        (
            AskUserQuestionAnswerItem("pkg", ["npm"], notes="\ud800x"),
            "answers[0].notes: must be valid Unicode: it holds a lone surrogate",
        ),
        (
            AskUserQuestionAnswerItem("pkg", ["npm"], notes="\x00"),
            "answers[0].notes: must not be blank",
        ),
    ],
)
def test_answer_text_follows_the_requests_text_rules(
    ui: UserInteraction, item: AskUserQuestionAnswerItem, message: str
) -> None:
    ui.register_provider(Recorder(AskUserQuestionAnswer([item])))
    error = ask_error(ui, AskUserQuestionRequest(QUESTIONS))
    assert error.code == INVALID_ANSWER
    assert error.message == message


@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_any_custom_text_either_passes_the_rules_or_is_reported(text: str) -> None:
    import json

    from user_interaction import check_answer

    answer = AskUserQuestionAnswer([AskUserQuestionAnswerItem("name", custom=text)])
    problems = check_answer(AskUserQuestionRequest(QUESTIONS), answer)
    if not problems:  # what passes can be stored and sent as UTF-8 JSON
        json.dumps(answer.to_dict(), ensure_ascii=False).encode()
        assert text.replace("\x00", "").strip()
    else:
        assert [problem.path for problem in problems] == ["answers[0].custom"]
