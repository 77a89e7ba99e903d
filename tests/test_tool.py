"""The model-facing tool: schema, argument parsing, rendering, ``call`` end to end, and
the texts shown in docs/tool.md."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_TIMEOUT,
    INVALID_REQUEST,
    NO_PROVIDER,
    PROVIDER_FAILED,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    tool,
)
from user_interaction._validation import validate_request
from user_interaction.tool import ToolLimits, ToolResult, parse_arguments, render_answer

DOC = Path(__file__).resolve().parents[1] / "docs" / "tool.md"

PKG = {
    "questions": [
        {
            "id": "pkg",
            "header": "Package manager",
            "question": "Which package manager?",
            "options": [{"label": "pnpm", "description": "fast"}, {"label": "npm"}],
        }
    ]
}


def problem(raw: object, **kwargs: Any) -> str:
    """The INVALID_REQUEST message parse_arguments gives for ``raw``."""
    with pytest.raises(UserInteractionError) as info:
        parse_arguments(raw, **kwargs)
    assert info.value.code == INVALID_REQUEST
    return info.value.message


def one_question(**fields: object) -> dict[str, Any]:
    return {"questions": [{"id": "q", "question": "Proceed?", **fields}]}


# -- NAME, DESCRIPTION, PARAMETERS --------------------------------------------------------


def test_name_and_public_surface() -> None:
    assert tool.NAME == "ask_user_question"
    assert sorted(tool.__all__) == sorted(
        [
            "DESCRIPTION",
            "NAME",
            "PARAMETERS",
            "ToolLimits",
            "ToolResult",
            "anthropic_tool",
            "call",
            "openai_tool",
            "parameters",
            "parse_arguments",
            "render_answer",
        ]
    )
    for name in tool.__all__:
        assert hasattr(tool, name)


def test_description_tells_the_model_when_and_how_to_ask() -> None:
    text = tool.DESCRIPTION
    for needle in (
        "confirmation",
        "choose between alternatives",
        "information you need is missing",
        "echo it back",
        '{"answers":[{"id":"pkg","selected":["pnpm"]}]}',
        "own words",
        "`custom`",
        "skipped",
        "multi_select",
        'list it first and append " (Recommended)"',
        "`notes`",
        "`preview`",
        "compare concrete artifacts",
    ):
        assert needle in text
    assert "detail" not in text
    assert "multiSelect" not in text


def test_parameters_is_a_plain_draft_2020_12_schema() -> None:
    schema = tool.PARAMETERS
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(schema)) == schema  # plain JSON all the way down
    assert tool.parameters() == schema
    assert tool.parameters() is not schema
    fresh = tool.parameters()
    fresh["properties"]["questions"]["minItems"] = 9
    assert tool.PARAMETERS["properties"]["questions"]["minItems"] == 1


def test_parameters_shape_is_the_models_vocabulary() -> None:
    root = tool.PARAMETERS
    questions = root["properties"]["questions"]
    question = questions["items"]
    option = question["properties"]["options"]["items"]
    assert root["required"] == ["questions"]
    assert questions["type"] == "array"
    assert questions["minItems"] == 1
    assert list(question["properties"]) == ["id", "question", "header", "options", "multi_select"]
    assert question["required"] == ["id", "question"]
    assert question["properties"]["multi_select"]["type"] == "boolean"
    assert list(option["properties"]) == ["label", "description", "preview"]
    assert option["required"] == ["label"]
    preview = option["properties"]["preview"]
    assert (preview["type"], preview["pattern"], preview["maxLength"]) == ("string", "\\S", 10_000)
    for needle in ("Markdown", "concrete artifacts", "leave them out", "without it"):
        assert needle in preview["description"]
    for obj in (root, question, option):
        assert obj["type"] == "object"
        assert obj["additionalProperties"] is False
    for name in ("id", "question", "header"):
        assert question["properties"][name]["type"] == "string"
        assert question["properties"][name]["pattern"] == "\\S"
    assert "maxItems" not in questions
    assert "maxLength" not in question["properties"]["header"]
    for obj in (questions, *question["properties"].values(), *option["properties"].values()):
        assert obj["description"]


def test_vendor_tool_definitions() -> None:
    openai = tool.openai_tool()
    assert openai == {
        "type": "function",
        "function": {
            "name": "ask_user_question",
            "description": tool.DESCRIPTION,
            "parameters": tool.PARAMETERS,
        },
    }
    anthropic = tool.anthropic_tool()
    assert anthropic == {
        "name": "ask_user_question",
        "description": tool.DESCRIPTION,
        "input_schema": tool.PARAMETERS,
    }
    assert list(anthropic) == ["name", "description", "input_schema"]
    # Fresh copies: an SDK may modify what it is given.
    openai["function"]["parameters"]["properties"].clear()
    anthropic["input_schema"]["required"].clear()
    assert tool.openai_tool()["function"]["parameters"] == tool.PARAMETERS
    assert tool.PARAMETERS["required"] == ["questions"]
    # Both are plain JSON, as the SDKs send them.
    assert json.loads(json.dumps(tool.openai_tool())) == tool.openai_tool()
    assert json.loads(json.dumps(tool.anthropic_tool())) == tool.anthropic_tool()


def test_vendor_tool_definitions_state_the_limits() -> None:
    limits = ToolLimits(max_questions=4, max_options=5, max_header_length=12)
    for definition, schema in (
        (tool.openai_tool(limits)["function"], tool.openai_tool(limits)["function"]["parameters"]),
        (tool.anthropic_tool(limits), tool.anthropic_tool(limits)["input_schema"]),
    ):
        assert definition["description"] == (
            tool.DESCRIPTION + "\n\nLimits: at most 4 questions per call; at most 5 options "
            "per question; headers of at most 12 characters."
        )
        assert schema == tool.parameters(limits)
    schema = tool.parameters(limits)
    Draft202012Validator.check_schema(schema)
    questions = schema["properties"]["questions"]
    assert questions["maxItems"] == 4
    assert questions["items"]["properties"]["options"]["maxItems"] == 5
    assert questions["items"]["properties"]["header"]["maxLength"] == 12
    only = tool.anthropic_tool(ToolLimits(max_options=3))["description"]
    assert only.endswith("\n\nLimits: at most 3 options per question.")
    assert tool.anthropic_tool(ToolLimits())["description"] == tool.DESCRIPTION
    # the default preview limit is in the schema; another one is stated too
    previews = tool.anthropic_tool(ToolLimits(max_preview_length=500))
    assert previews["description"].endswith("\n\nLimits: previews of at most 500 characters.")
    option = previews["input_schema"]["properties"]["questions"]["items"]["properties"]["options"]
    assert option["items"]["properties"]["preview"]["maxLength"] == 500
    unlimited = tool.parameters(ToolLimits(max_preview_length=None))
    option = unlimited["properties"]["questions"]["items"]["properties"]["options"]
    assert "maxLength" not in option["items"]["properties"]["preview"]
    assert tool.anthropic_tool(ToolLimits(max_preview_length=None))["description"] == (
        tool.DESCRIPTION
    )


# -- schema and parse_arguments agree ---------------------------------------------------

VALID = [
    PKG,
    {"questions": [{"id": "name", "question": "What should the project be called?"}]},
    {"questions": [{"id": "ok", "question": "Deploy now?", "header": "Confirm"}]},
    {"questions": [{"id": "x", "question": "Which?", "options": []}]},
    {"questions": [{"id": "x", "question": "Which?", "multi_select": False}]},
    {
        "questions": [
            {
                "id": "features",
                "question": "Which features?",
                "options": [{"label": "auth"}, {"label": "billing"}, {"label": "search"}],
                "multi_select": True,
            },
            {"id": "name", "question": "Project name?"},
        ]
    },
    {"questions": [{"id": "ü", "question": "日本語?", "options": [{"label": "はい"}]}]},
]

# Malformed arguments the schema itself rejects, with the message parse_arguments gives.
INVALID_BOTH = [
    ([], "arguments: expected an object, got an array"),
    ({}, "questions: required"),
    ({"questions": []}, "questions: at least one question is required"),
    ({"questions": {}}, "questions: expected an array, got an object"),
    ({"questions": ["Proceed?"]}, "questions[0]: expected an object, got a string"),
    ({"questions": [{"question": "Proceed?"}]}, "questions[0].id: required"),
    ({"questions": [{"id": "q"}]}, "questions[0].question: required"),
    (one_question(id=""), "questions[0].id: must not be blank"),
    (one_question(question=" \n\t"), "questions[0].question: must not be blank"),
    (one_question(header=""), "questions[0].header: must not be blank"),
    (one_question(id=7), "questions[0].id: expected a string, got a number"),
    (one_question(header=True), "questions[0].header: expected a string, got a boolean"),
    (
        one_question(header=None),
        "questions[0].header: expected a string, got null (leave the field out instead)",
    ),
    (one_question(options="a, b"), "questions[0].options: expected an array, got a string"),
    (one_question(options=None), "questions[0].options: expected an array, got null"),
    (one_question(options=["a"]), "questions[0].options[0]: expected an object, got a string"),
    (one_question(options=[{}]), "questions[0].options[0].label: required"),
    (one_question(options=[{"label": " "}]), "questions[0].options[0].label: must not be blank"),
    (
        one_question(options=[{"label": "a", "description": ""}]),
        "questions[0].options[0].description: must not be blank",
    ),
    (
        one_question(options=[{"label": "a", "description": 1}]),
        "questions[0].options[0].description: expected a string, got a number",
    ),
    (
        one_question(multi_select="yes"),
        "questions[0].multi_select: expected a boolean, got a string",
    ),
    (one_question(multi_select=None), "questions[0].multi_select: expected a boolean, got null"),
    (one_question(multi_select=1), "questions[0].multi_select: expected a boolean, got a number"),
    (
        one_question(detail="More context"),
        "questions[0].detail: unknown field (allowed: id, question, header, options, multi_select)",
    ),
    (
        one_question(multiSelect=False),
        "questions[0].multiSelect: unknown field, did you mean multi_select? "
        "(allowed: id, question, header, options, multi_select)",
    ),
    (
        one_question(options=[{"label": "a", "value": "a"}]),
        "questions[0].options[0].value: unknown field (allowed: label, description, preview)",
    ),
    ({**PKG, "agent": "me"}, "agent: unknown field (allowed: questions)"),
    (
        {"id": "q", "question": "Proceed?"},
        "questions: required; id: unknown field (allowed: questions); "
        "question: unknown field, did you mean questions? (allowed: questions)",
    ),
    (
        {**PKG, "two words": 1},
        '["two words"]: unknown field (allowed: questions)',
    ),
]

# Well-typed arguments only parse_arguments rejects: rules the schema cannot express.
INVALID_PARSER_ONLY = [
    (one_question(id="\x00\x00"), "questions[0].id: must not be blank"),
    (
        one_question(question="Deploy?\ud800"),
        "questions[0].question: must be valid Unicode: it holds a lone surrogate",
    ),
    (
        {"questions": [{"id": "pkg", "question": "A?"}, {"id": "pkg", "question": "B?"}]},
        "questions[1].id: duplicate id 'pkg'",
    ),
    (
        one_question(options=[{"label": "npm"}, {"label": "npm", "description": "again"}]),
        "questions[0].options[1].label: duplicate label 'npm'",
    ),
    (
        one_question(multi_select=True),
        "questions[0].multi_select: a question without options cannot be multi-select",
    ),
    (
        one_question(multi_select=True, options=[]),
        "questions[0].multi_select: a question without options cannot be multi-select",
    ),
]

VALIDATOR = Draft202012Validator(tool.PARAMETERS)


@pytest.mark.parametrize("raw", VALID)
def test_valid_examples_pass_schema_and_parser(raw: dict[str, Any]) -> None:
    VALIDATOR.validate(raw)
    request = parse_arguments(raw)
    validate_request(request)
    assert parse_arguments(json.dumps(raw)) == request
    assert parse_arguments(json.dumps(raw, ensure_ascii=False).encode()) == request


@pytest.mark.parametrize(("raw", "message"), INVALID_BOTH)
def test_malformed_arguments_fail_schema_and_parser(raw: object, message: str) -> None:
    assert not VALIDATOR.is_valid(raw)
    assert problem(raw) == message
    assert problem(json.dumps(raw)) == message


@pytest.mark.parametrize(("raw", "message"), INVALID_PARSER_ONLY)
def test_cross_field_rules_fail_the_parser_only(raw: dict[str, Any], message: str) -> None:
    assert VALIDATOR.is_valid(raw)
    assert problem(raw) == message


# -- parse_arguments ---------------------------------------------------------------------


def test_parse_maps_the_model_keys_onto_the_data_model() -> None:
    raw = {
        "questions": [
            {
                "id": "features",
                "header": "Features",
                "question": "Which features?",
                "options": [{"label": "auth", "description": "login"}, {"label": "search"}],
                "multi_select": True,
            },
            {"id": "name", "question": "Project name?", "options": []},
        ]
    }
    request = parse_arguments(raw)
    assert request == AskUserQuestionRequest(
        [
            AskUserQuestionItem(
                "features",
                "Which features?",
                header="Features",
                options=[AskUserQuestionOption("auth", "login"), AskUserQuestionOption("search")],
                multi_select=True,
            ),
            AskUserQuestionItem("name", "Project name?"),
        ]
    )
    assert type(request.questions) is tuple
    assert type(request.questions[0].options) is tuple
    assert request.questions[0].detail is None
    assert request.questions[1].multi_select is False
    assert request.agent is None
    assert request.signal is None


def test_parse_keeps_text_exactly_and_stores_agent_and_signal() -> None:
    signal = AbortController().signal
    agent = object()
    raw = one_question(id=" padded ", options=[{"label": "a\tb "}])
    request = parse_arguments(raw, agent=agent, signal=signal)
    assert request.questions[0].id == " padded "
    assert request.questions[0].options[0].label == "a\tb "
    assert request.agent is agent
    assert request.signal is signal


@pytest.mark.parametrize(
    ("raw", "start"),
    [
        ("", "arguments: not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        ('{"questions": [}', "arguments: not valid JSON (Expecting value: line 1 column 16"),
        ("{'questions': []}", "arguments: not valid JSON (Expecting property name enclosed"),
        (b"\xff{}", "arguments: not valid JSON ("),
        ("[" * 100_000, "arguments: not valid JSON (nested too deeply)"),
        ('"questions"', "arguments: expected an object, got a string"),
        ("null", "arguments: expected an object, got null"),
        ("3", "arguments: expected an object, got a number"),
    ],
)
def test_parse_reports_bad_json(raw: str | bytes, start: str) -> None:
    assert problem(raw).startswith(start)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "arguments: expected an object, got null"),
        (42, "arguments: expected an object, got a number"),
        (True, "arguments: expected an object, got a boolean"),
        (("questions",), "arguments: expected an object, got an array"),
        (object(), "arguments: expected an object, got object"),
        ({1: "x", **PKG}, '["1"]: unknown field (allowed: questions)'),
        ({"questions": [{"id": "q", "question": "?", ("k",): 1}]}, "questions[0][\"('k',)\"]: "),
    ],
)
def test_parse_rejects_any_python_value(raw: object, message: str) -> None:
    assert problem(raw).startswith(message)


def test_parse_accepts_tuples_from_python_callers() -> None:
    raw = {"questions": ({"id": "q", "question": "?", "options": ({"label": "a"},)},)}
    assert parse_arguments(raw).questions[0].options == (AskUserQuestionOption("a"),)


def test_parse_reports_every_problem_in_document_order() -> None:
    raw = {
        "questions": [
            {"question": "Proceed?", "multiSelect": True, "options": [{"label": "Yes"}, {}]},
            {"id": "b", "question": ""},
            {"id": "b", "question": "Again?", "multi_select": True},
        ]
    }
    assert problem(raw) == (
        "questions[0].id: required; "
        "questions[0].options[1].label: required; "
        "questions[0].multiSelect: unknown field, did you mean multi_select? "
        "(allowed: id, question, header, options, multi_select); "
        "questions[1].question: must not be blank; "
        "questions[2].id: duplicate id 'b'; "
        "questions[2].multi_select: a question without options cannot be multi-select"
    )


def test_parse_caps_the_number_of_problems_reported() -> None:
    raw = {"questions": [{"id": "", "question": "?"} for _ in range(25)]}
    message = problem(raw)
    assert message.startswith("questions[0].id: must not be blank; questions[1].id: ")
    assert "questions[9].id: must not be blank; and 15 more problems" in message
    assert message.endswith("; and 15 more problems")
    assert "questions[10]" not in message


def test_parse_shortens_what_it_echoes() -> None:
    long = "x" * 500
    raw = {"questions": [{"id": long, "question": "?"}, {"id": long, "question": "?"}]}
    assert problem(raw) == f"questions[1].id: duplicate id '{'x' * 40}…'"
    assert problem({**PKG, long: 1}) == f'["{"x" * 40}…"]: unknown field (allowed: questions)'


def test_parse_errors_keep_the_json_error_as_cause() -> None:
    with pytest.raises(UserInteractionError) as info:
        parse_arguments("{")
    assert isinstance(info.value.__cause__, ValueError)


# -- limits --------------------------------------------------------------------------------


def test_limits_are_off_by_default_except_for_previews() -> None:
    assert ToolLimits() == ToolLimits(
        max_questions=None, max_options=None, max_header_length=None, max_preview_length=10_000
    )
    raw = {
        "questions": [
            {
                "id": f"q{i}",
                "header": "h" * 300,
                "question": "?",
                "options": [{"label": str(n)} for n in range(100)],
            }
            for i in range(50)
        ]
    }
    assert len(parse_arguments(raw).questions) == 50


@pytest.mark.parametrize(
    ("limits", "raw", "message"),
    [
        (
            ToolLimits(max_questions=2),
            {"questions": [{"id": str(i), "question": "?"} for i in range(3)]},
            "questions: at most 2 questions per call, got 3",
        ),
        (
            ToolLimits(max_options=2),
            one_question(options=[{"label": "a"}, {"label": "b"}, {"label": "c"}]),
            "questions[0].options: at most 2 options per question, got 3",
        ),
        (
            ToolLimits(max_header_length=5),
            one_question(header="Confirm"),
            "questions[0].header: at most 5 characters, got 7",
        ),
        (
            ToolLimits(max_preview_length=3),
            one_question(options=[{"label": "a"}, {"label": "b", "preview": "abcd"}]),
            "questions[0].options[1].preview: at most 3 characters, got 4",
        ),
    ],
)
def test_each_limit(limits: ToolLimits, raw: dict[str, Any], message: str) -> None:
    assert problem(raw, limits=limits) == message
    assert parse_arguments(raw) is not None  # fine without the limit
    schema = Draft202012Validator(tool.parameters(limits))
    assert not schema.is_valid(raw)
    assert VALIDATOR.is_valid(raw)


def test_limits_allow_exactly_the_limit() -> None:
    limits = ToolLimits(max_questions=2, max_options=2, max_header_length=7, max_preview_length=2)
    raw = {
        "questions": [
            {
                "id": "a",
                "question": "?",
                "header": "Confirm",
                "options": [{"label": "y", "preview": "ok"}],
            },
            {"id": "b", "question": "?", "options": [{"label": "y"}, {"label": "n"}]},
        ]
    }
    assert len(parse_arguments(raw, limits=limits).questions) == 2
    Draft202012Validator(tool.parameters(limits)).validate(raw)


def test_previews_are_limited_by_default() -> None:
    at_limit = "x" * 10_000
    raw = one_question(options=[{"label": "a", "preview": at_limit}])
    assert parse_arguments(raw).questions[0].options[0].preview == at_limit
    VALIDATOR.validate(raw)
    raw = one_question(
        options=[{"label": "a", "preview": "ok"}, {"label": "b", "preview": at_limit + "é"}]
    )
    assert problem(raw) == "questions[0].options[1].preview: at most 10000 characters, got 10001"
    assert not VALIDATOR.is_valid(raw)
    unlimited = ToolLimits(max_preview_length=None)
    assert parse_arguments(raw, limits=unlimited).questions[0].options[1].preview == (
        at_limit + "é"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([{"label": "a", "preview": " \n "}], "questions[0].options[0].preview: must not be blank"),
        (
            [{"label": "a", "preview": ["x"]}],
            "questions[0].options[0].preview: expected a string, got an array",
        ),
        (
            [{"label": "a", "preview": None}],
            "questions[0].options[0].preview: expected a string, got null "
            "(leave the field out instead)",
        ),
        (
            [{"label": "a", "previews": "x"}],
            "questions[0].options[0].previews: unknown field, did you mean preview? "
            "(allowed: label, description, preview)",
        ),
    ],
)
def test_malformed_previews(options: list[Any], message: str) -> None:
    assert problem(one_question(options=options)) == message


def test_previews_reach_the_request_on_single_and_multi_select() -> None:
    preview = "```toml\n[tool.ruff]\nline-length = 100\n```"
    raw = {
        "questions": [
            {"id": "cfg", "question": "Which?", "options": [{"label": "a", "preview": preview}]},
            {
                "id": "many",
                "question": "Which ones?",
                "multi_select": True,
                "options": [{"label": "x", "description": "d", "preview": "x"}, {"label": "y"}],
            },
        ]
    }
    request = parse_arguments(raw)
    assert request.questions[0].options[0] == AskUserQuestionOption("a", None, preview)
    assert request.questions[1].options == (
        AskUserQuestionOption("x", "d", "x"),
        AskUserQuestionOption("y"),
    )
    assert request.to_dict()["questions"][1]["options"][0] == {
        "label": "x",
        "description": "d",
        "preview": "x",
    }


def test_limits_are_reported_with_the_other_problems() -> None:
    limits = ToolLimits(max_questions=1)
    raw = {"questions": [{"id": "a", "question": "?"}, {"id": "", "question": "?"}]}
    assert problem(raw, limits=limits) == (
        "questions: at most 1 question per call, got 2; questions[1].id: must not be blank"
    )


@pytest.mark.parametrize("value", [0, -1])
def test_tool_limits_reject_non_positive_values(value: int) -> None:
    with pytest.raises(ValueError, match="max_options must be at least 1"):
        ToolLimits(max_options=value)


@pytest.mark.parametrize("value", [1.5, "3", True])
def test_tool_limits_reject_non_integers(value: object) -> None:
    with pytest.raises(TypeError, match="max_questions must be an int or None"):
        ToolLimits(max_questions=value)  # type: ignore[arg-type]


def test_tool_limits_are_frozen_and_keyword_only() -> None:
    limits = ToolLimits(max_questions=3)
    with pytest.raises(AttributeError):
        limits.max_questions = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        ToolLimits(3)  # type: ignore[misc]


# -- render_answer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", ["pnpm"])]),
            '{"answers":[{"id":"pkg","selected":["pnpm"]}]}',
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg", custom="yarn")]),
            '{"answers":[{"id":"pkg","selected":[],"custom":"yarn"}]}',
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("pkg")]),
            '{"answers":[{"id":"pkg","selected":[]}]}',
        ),
        (
            AskUserQuestionAnswer(
                [
                    AskUserQuestionAnswerItem("features", ["auth", "search"]),
                    AskUserQuestionAnswerItem("name", custom="atlas"),
                ]
            ),
            '{"answers":[{"id":"features","selected":["auth","search"]},'
            '{"id":"name","selected":[],"custom":"atlas"}]}',
        ),
        (AskUserQuestionAnswer([]), '{"answers":[]}'),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("ü", custom="日本語 — ok")]),
            '{"answers":[{"id":"ü","selected":[],"custom":"日本語 — ok"}]}',
        ),
        (
            AskUserQuestionAnswer(
                [AskUserQuestionAnswerItem("pkg", ["npm"], notes="but pin the version")]
            ),
            '{"answers":[{"id":"pkg","selected":["npm"],"notes":"but pin the version"}]}',
        ),
        (
            AskUserQuestionAnswer(
                [
                    AskUserQuestionAnswerItem("tools", ["ruff", "mypy"], notes="strict\n— both"),
                    AskUserQuestionAnswerItem("name", custom="atlas"),
                ]
            ),
            '{"answers":[{"id":"tools","selected":["ruff","mypy"],"notes":"strict\\n— both"},'
            '{"id":"name","selected":[],"custom":"atlas"}]}',
        ),
        (
            AskUserQuestionAnswer([AskUserQuestionAnswerItem("q", custom='say "hi"\\\n\t')]),
            '{"answers":[{"id":"q","selected":[],"custom":"say \\"hi\\"\\\\\\n\\t"}]}',
        ),
    ],
)
def test_render_answer_byte_for_byte(answer: AskUserQuestionAnswer, text: str) -> None:
    assert render_answer(answer) == text
    assert json.loads(text) == answer.to_dict()


# -- call, end to end ---------------------------------------------------------------------


class Provider:
    """A real provider: answers with ``respond(request)``, which may raise."""

    def __init__(self, respond: Callable[[AskUserQuestionRequest], object]) -> None:
        self.respond = respond
        self.requests: list[AskUserQuestionRequest] = []

    async def ask(self, request: AskUserQuestionRequest) -> object:
        self.requests.append(request)
        return self.respond(request)


class Waiting:
    """A provider that waits until its signal fires, like a human who never answers."""

    def __init__(self) -> None:
        self.requests: list[AskUserQuestionRequest] = []
        self.started: asyncio.Event | None = None

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        assert self.started is not None
        self.started.set()
        assert request.signal is not None
        await request.signal.wait()
        return AskUserQuestionAnswer([])  # too late: the caller has gone


def answer_with(*items: AskUserQuestionAnswerItem) -> Callable[[object], AskUserQuestionAnswer]:
    return lambda _request: AskUserQuestionAnswer(items)


def cancel(_request: object) -> AskUserQuestionAnswer:
    raise UserInteractionError("The user dismissed the question.", ASK_CANCELLED)


async def fast_timers() -> None:
    """Make the running loop's timers 1000 times faster, so a 300 s timeout takes 0.3 s."""
    loop = asyncio.get_running_loop()
    call_at = loop.call_at  # call_later goes through call_at too

    def faster(when: float, callback: Any, *args: Any, context: Any = None) -> Any:
        now = loop.time()
        return call_at(now + (when - now) / 1000, callback, *args, context=context)

    loop.call_at = faster  # type: ignore[method-assign]


def test_call_returns_the_rendered_answer(ui: UserInteraction) -> None:
    provider = Provider(answer_with(AskUserQuestionAnswerItem("pkg", ["pnpm"])))
    ui.register_provider(provider)
    agent = object()
    result = asyncio.run(tool.call(ui, json.dumps(PKG), agent=agent))
    assert result == ToolResult('{"answers":[{"id":"pkg","selected":["pnpm"]}]}', False, None)
    assert result.error is None
    assert provider.requests[0] == parse_arguments(PKG)
    assert provider.requests[0].agent is agent


def test_call_with_a_custom_answer_and_a_skip(ui: UserInteraction) -> None:
    raw = {"questions": [*PKG["questions"], {"id": "name", "question": "Name?"}]}
    ui.register_provider(
        Provider(
            answer_with(
                AskUserQuestionAnswerItem("pkg"), AskUserQuestionAnswerItem("name", custom="Zoë")
            )
        )
    )
    result = asyncio.run(tool.call(ui, raw))
    assert result.text == (
        '{"answers":[{"id":"pkg","selected":[]},{"id":"name","selected":[],"custom":"Zoë"}]}'
    )
    assert result.is_error is False


def test_call_offers_previews_and_renders_notes(ui: UserInteraction) -> None:
    raw = one_question(
        options=[{"label": "grid", "preview": "+--+--+\n|  |  |"}, {"label": "list"}]
    )
    provider = Provider(
        answer_with(AskUserQuestionAnswerItem("q", ["grid"], notes="two columns at most"))
    )
    ui.register_provider(provider)
    result = asyncio.run(tool.call(ui, raw))
    assert result.text == (
        '{"answers":[{"id":"q","selected":["grid"],"notes":"two columns at most"}]}'
    )
    assert provider.requests[0].questions[0].options[0].preview == "+--+--+\n|  |  |"


def test_call_reports_notes_without_a_selection_as_invalid(ui: UserInteraction) -> None:
    ui.register_provider(Provider(answer_with(AskUserQuestionAnswerItem("pkg", notes="hm"))))
    result = asyncio.run(tool.call(ui, PKG))
    assert result.error is not None
    assert result.error["code"] == "INVALID_ANSWER"
    assert "notes go beside a selection" in result.text


def test_call_with_a_sync_provider(ui: UserInteraction) -> None:
    class SyncProvider:
        def ask(self, request: AskUserQuestionRequest) -> dict[str, Any]:
            return {"answers": [{"id": "pkg", "selected": ["npm"]}]}

    ui.register_provider(SyncProvider())
    result = asyncio.run(tool.call(ui, PKG, timeout=30))
    assert result.text == '{"answers":[{"id":"pkg","selected":["npm"]}]}'


def test_call_reports_a_cancelled_ask(ui: UserInteraction) -> None:
    ui.register_provider(Provider(cancel))
    result = asyncio.run(tool.call(ui, PKG))
    assert result == ToolResult(
        "Error: The user dismissed the question.",
        True,
        {
            "name": "UserInteractionError",
            "code": ASK_CANCELLED,
            "message": "The user dismissed the question.",
        },
    )


def test_call_reports_a_failing_provider(ui: UserInteraction) -> None:
    def boom(_request: object) -> AskUserQuestionAnswer:
        raise RuntimeError("boom")

    ui.register_provider(Provider(boom))
    result = asyncio.run(tool.call(ui, PKG))
    assert result.text == "Error: The provider failed: RuntimeError: boom"
    assert result.error is not None
    assert result.error["code"] == PROVIDER_FAILED


def test_call_reports_an_invalid_provider_answer(ui: UserInteraction) -> None:
    ui.register_provider(Provider(answer_with(AskUserQuestionAnswerItem("pkg", ["bun"]))))
    result = asyncio.run(tool.call(ui, PKG))
    assert result.is_error
    assert result.error is not None
    assert result.error["code"] == "INVALID_ANSWER"
    assert result.text == f"Error: {result.error['message']}"


def test_call_passes_the_signal_and_reports_an_abort(ui: UserInteraction) -> None:
    provider = Waiting()
    ui.register_provider(provider)
    controller = AbortController()

    async def scenario() -> ToolResult:
        provider.started = asyncio.Event()
        pending = asyncio.ensure_future(tool.call(ui, PKG, signal=controller.signal))
        await provider.started.wait()
        controller.abort()
        return await pending

    result = asyncio.run(scenario())
    assert result.text == "Error: The operation was aborted."
    assert result.is_error
    assert result.error == {
        "name": "UserInteractionError",
        "code": ASK_ABORTED,
        "message": "The operation was aborted.",
    }
    (seen,) = provider.requests
    assert seen.signal is not None
    assert seen.signal.aborted  # the provider was told too


def test_call_with_an_already_aborted_signal_asks_nobody(ui: UserInteraction) -> None:
    provider = Provider(answer_with())
    ui.register_provider(provider)
    controller = AbortController()
    controller.abort("user pressed stop")
    for raw in (PKG, "not even JSON"):
        result = asyncio.run(tool.call(ui, raw, signal=controller.signal))
        assert result.text == "Error: The ask was aborted: user pressed stop"
        assert result.error is not None
        assert result.error["code"] == ASK_ABORTED
    assert provider.requests == []


def test_call_reports_a_timeout(ui: UserInteraction) -> None:
    provider = Waiting()
    ui.register_provider(provider)

    async def scenario() -> ToolResult:
        provider.started = asyncio.Event()
        return await tool.call(ui, PKG, timeout=0.05)

    result = asyncio.run(scenario())
    assert result.text == "Error: No answer within 0.05 s."
    assert result.error == {
        "name": "UserInteractionError",
        "code": ASK_TIMEOUT,
        "message": "No answer within 0.05 s.",
    }
    assert provider.requests[0].signal is not None
    assert provider.requests[0].signal.aborted


def test_call_without_a_provider(ui: UserInteraction) -> None:
    result = asyncio.run(tool.call(ui, PKG))
    assert result.text == "Error: No provider is active: register one or call use()."
    assert result.error is not None
    assert result.error["code"] == NO_PROVIDER


def test_call_with_invalid_arguments_asks_nobody(ui: UserInteraction) -> None:
    provider = Provider(answer_with())
    ui.register_provider(provider)
    result = asyncio.run(tool.call(ui, '{"questions": [{"id": "q"}]}'))
    assert result == ToolResult(
        "Error: questions[0].question: required",
        True,
        {
            "name": "UserInteractionError",
            "code": INVALID_REQUEST,
            "message": "questions[0].question: required",
        },
    )
    limited = asyncio.run(tool.call(ui, PKG, limits=ToolLimits(max_options=1)))
    assert limited.text == "Error: questions[0].options: at most 1 option per question, got 2"
    assert provider.requests == []


def test_call_lets_a_bad_timeout_raise(ui: UserInteraction) -> None:
    ui.register_provider(Provider(answer_with()))
    with pytest.raises(ValueError, match="timeout"):
        asyncio.run(tool.call(ui, PKG, timeout=-1))


def test_tool_result_messages_for_the_vendors() -> None:
    ok = ToolResult('{"answers":[]}')
    assert ok.is_error is False
    assert ok.error is None
    assert ok.to_openai_message("call_9") == {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": '{"answers":[]}',
    }
    failed = ToolResult(
        "Error: x", True, {"name": "UserInteractionError", "code": "C", "message": "x"}
    )
    assert failed.to_anthropic_block("toolu_9") == {
        "type": "tool_result",
        "tool_use_id": "toolu_9",
        "content": "Error: x",
        "is_error": True,
    }
    with pytest.raises(AttributeError):
        ok.text = "changed"  # type: ignore[misc]
    assert hash(failed) == hash(copy.deepcopy(failed))


# -- the examples in docs/tool.md ---------------------------------------------------------

_BLOCK = re.compile(
    r"<!-- (?P<kind>[\w-]+): (?P<name>[\w-]+)(?: (?P<code>[A-Z_]+))? -->\n"
    r"```\w*\n(?P<body>.*?)\n```",
    re.S,
)


def doc_blocks(kind: str) -> dict[str, tuple[str | None, str]]:
    blocks: dict[str, tuple[str | None, str]] = {}
    for match in _BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        if match["kind"] == kind:
            assert match["name"] not in blocks
            blocks[match["name"]] = (match["code"], match["body"])
    return blocks


def doc_arguments(name: str) -> Any:
    return json.loads(doc_blocks("arguments")[name][1])


DOC_LIMITS = ToolLimits(max_questions=4, max_options=4, max_header_length=12)


async def doc_scenario(name: str, ui: UserInteraction) -> ToolResult:
    """Run the outcome called ``name`` in docs/tool.md for real."""
    main = doc_arguments("main")
    answers = {
        "answer": answer_with(AskUserQuestionAnswerItem("pkg", ["pnpm (Recommended)"])),
        "custom": answer_with(
            AskUserQuestionAnswerItem("pkg", custom="Yarn — the monorepo already uses it")
        ),
        "skipped": answer_with(AskUserQuestionAnswerItem("pkg")),
        "cancelled": cancel,
    }
    if name in answers:
        ui.register_provider(Provider(answers[name]))
        return await tool.call(ui, main)
    if name == "notes":
        item = AskUserQuestionAnswerItem(
            "config", ["Strict"], notes="but allow print() in scripts/"
        )
        provider = Provider(answer_with(item))
        ui.register_provider(provider)
        result = await tool.call(ui, doc_arguments("previews"))
        (option, _) = provider.requests[0].questions[0].options
        assert option.preview == '```toml\n[tool.ruff.lint]\nselect = ["ALL"]\n```'
        return result
    if name == "no-provider":
        return await tool.call(ui, main)
    if name in ("invalid", "limits"):
        ui.register_provider(Provider(answer_with()))
        return await tool.call(ui, doc_arguments(name), limits=DOC_LIMITS)
    waiting = Waiting()
    waiting.started = asyncio.Event()
    ui.register_provider(waiting)
    if name == "timeout":
        await fast_timers()
        return await tool.call(ui, main, timeout=300)
    assert name == "aborted"
    controller = AbortController()
    pending = asyncio.ensure_future(tool.call(ui, main, signal=controller.signal))
    await waiting.started.wait()
    controller.abort()
    return await pending


def test_doc_shows_every_outcome() -> None:
    assert sorted(doc_blocks("model-sees")) == sorted(
        [
            "answer",
            "custom",
            "skipped",
            "cancelled",
            "aborted",
            "timeout",
            "no-provider",
            "invalid",
            "limits",
            "notes",
        ]
    )
    assert sorted(doc_blocks("arguments")) == ["invalid", "limits", "main", "previews"]


@pytest.mark.parametrize("name", sorted(doc_blocks("model-sees")))
def test_doc_text_is_what_the_model_sees(name: str) -> None:
    code, text = doc_blocks("model-sees")[name]
    with UserInteraction() as ui:
        result = asyncio.run(doc_scenario(name, ui))
    assert result.text == text
    assert result.is_error is (code is not None)
    assert (result.error or {}).get("code") == code


def test_doc_arguments_match_the_schema() -> None:
    VALIDATOR.validate(doc_arguments("main"))
    VALIDATOR.validate(doc_arguments("previews"))
    limited = Draft202012Validator(tool.parameters(DOC_LIMITS))
    limited.validate(doc_arguments("main"))
    assert not limited.is_valid(doc_arguments("limits"))
    assert not VALIDATOR.is_valid(doc_arguments("invalid"))


def test_doc_vendor_messages() -> None:
    with UserInteraction() as ui:
        result = asyncio.run(doc_scenario("answer", ui))
    messages = doc_blocks("message")
    assert json.loads(messages["openai"][1]) == result.to_openai_message("call_1")
    assert json.loads(messages["anthropic"][1]) == result.to_anthropic_block("toolu_1")


def test_doc_error_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("| problem | message |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = dict(re.findall(r"^\| (.+?) \| `(.+)` \|$", table, re.M))
    inputs: dict[str, object] = {
        "not JSON": "",
        "not an object": "[]",
        "missing field": {"questions": [{"question": "Proceed?"}]},
        "wrong type": one_question(options="pnpm, npm"),
        "blank string (whitespace and NUL bytes)": one_question(
            options=[{"label": "Yes"}, {"label": " \x00"}]
        ),
        'lone surrogate (`"\\ud800"`)': one_question(question="Deploy?\ud800"),
        'nested too deeply (`"[" * 200000`)': "[" * 200_000,
        "unknown field": one_question(detail="More context"),
        "duplicate id": {"questions": [PKG["questions"][0], PKG["questions"][0]]},
        "duplicate label": one_question(options=[{"label": "npm"}, {"label": "npm"}]),
        "`multi_select` without options": one_question(multi_select=True),
        "no questions": {"questions": []},
    }
    assert sorted(rows) == sorted(inputs)
    for name, raw in inputs.items():
        assert problem(raw) == rows[name], name


def _exec_doc_example(name: str) -> dict[str, Any]:
    code = doc_blocks("example")[name][1]
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace


def test_doc_openai_loop_runs() -> None:
    run_openai = _exec_doc_example("openai-loop")["run_openai"]
    seen: list[dict[str, Any]] = []

    async def create(**kwargs: Any) -> Any:
        seen.append(kwargs)
        if len(seen) == 1:
            call = SimpleNamespace(
                id="call_1",
                type="function",
                function=SimpleNamespace(name="ask_user_question", arguments=json.dumps(PKG)),
            )
            message = SimpleNamespace(role="assistant", content=None, tool_calls=[call])
        else:
            message = SimpleNamespace(role="assistant", content="Using pnpm.", tool_calls=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    messages: list[Any] = [{"role": "user", "content": "Set up the workspace."}]
    with UserInteraction() as ui:
        ui.register_provider(Provider(answer_with(AskUserQuestionAnswerItem("pkg", ["pnpm"]))))
        reply = asyncio.run(run_openai(client, ui, messages, "some-model"))
    assert reply == "Using pnpm."
    assert seen[0]["tools"] == [tool.openai_tool()]
    assert seen[0]["model"] == "some-model"
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '{"answers":[{"id":"pkg","selected":["pnpm"]}]}',
    }
    assert len(messages) == 4


def test_doc_anthropic_loop_runs() -> None:
    run_anthropic = _exec_doc_example("anthropic-loop")["run_anthropic"]
    seen: list[dict[str, Any]] = []

    async def create(**kwargs: Any) -> Any:
        seen.append(kwargs)
        if len(seen) == 1:
            content = [
                SimpleNamespace(type="text", text="Let me ask."),
                SimpleNamespace(type="tool_use", id="toolu_1", name="ask_user_question", input={}),
            ]
            return SimpleNamespace(content=content, stop_reason="tool_use")
        return SimpleNamespace(
            content=[SimpleNamespace(type="text", text="OK.")], stop_reason="end_turn"
        )

    client = SimpleNamespace(messages=SimpleNamespace(create=create))
    messages: list[Any] = [{"role": "user", "content": "Set up the workspace."}]
    with UserInteraction() as ui:
        ui.register_provider(Provider(answer_with()))
        reply = asyncio.run(run_anthropic(client, ui, messages, "some-model"))
    assert reply[0].text == "OK."
    assert seen[0]["tools"] == [tool.anthropic_tool()]
    assert messages[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": "Error: questions: required",
                "is_error": True,
            }
        ],
    }


# -- property-based: parse_arguments never raises anything else --------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

_IDS = st.sampled_from(["pkg", "mode", "name", "db", "ci", "ü"])
_LABELS = st.sampled_from(["pnpm", "npm", "yarn", "pnpm (Recommended)", "はい"])
_TEXTS = st.sampled_from(["Which one?", "Confirm", "Proceed with the deploy?"])
_ODD_TEXT = st.sampled_from(["", " ", "\t\n", "\u3000"]) | st.text(max_size=4)
_EXTRA = st.sampled_from(["detail", "multiSelect", "value", "Label", "questionz", "notes"])
_PREVIEWS = st.sampled_from(["```sh\nnpm ci\n```", "+--+\n|ab|\n+--+", "x" * 10_001])


@st.composite
def near_valid(draw: Any) -> object:
    """Arguments shaped like the schema, each part sometimes missing, wrong or extra."""

    def chance(percent: int) -> bool:
        return bool(draw(st.integers(1, 100)) > 100 - percent)

    def value(good: Any) -> object:
        return draw(good if chance(90) else _ODD_TEXT if chance(70) else json_values)

    def put(obj: dict[str, Any], key: str, good: Any, percent: int = 97) -> None:
        if chance(percent):
            obj[key] = value(good)

    def extra(obj: dict[str, Any]) -> None:
        if chance(5):
            obj[draw(_EXTRA)] = draw(json_values)

    def option() -> object:
        if chance(3):
            return draw(json_values)
        obj: dict[str, Any] = {}
        put(obj, "label", _LABELS)
        put(obj, "description", _TEXTS, 30)
        put(obj, "preview", _PREVIEWS, 20)
        extra(obj)
        return obj

    def question() -> object:
        if chance(3):
            return draw(json_values)
        obj: dict[str, Any] = {}
        put(obj, "id", _IDS)
        put(obj, "question", _TEXTS)
        put(obj, "header", _TEXTS, 30)
        if chance(60):
            count = draw(st.integers(0, 4))
            obj["options"] = [option() for _ in range(count)] if chance(95) else value(_TEXTS)
        put(obj, "multi_select", st.booleans(), 40)
        extra(obj)
        return obj

    if chance(5):
        return draw(json_values)
    root: dict[str, Any] = {}
    if chance(95):
        count = draw(st.integers(0 if chance(10) else 1, 3))
        root["questions"] = [question() for _ in range(count)] if chance(95) else value(_TEXTS)
    extra(root)
    return root


def _breaks_a_cross_field_rule(raw: dict[str, Any]) -> bool:
    """For schema-valid arguments: a rule only parse_arguments checks is broken."""
    ids = [item["id"] for item in raw["questions"]]
    if len(set(ids)) != len(ids):
        return True
    for item in raw["questions"]:
        labels = [option["label"] for option in item.get("options", [])]
        if len(set(labels)) != len(labels):
            return True
        if item.get("multi_select") and not item.get("options"):
            return True
    return False


def _wire(raw: dict[str, Any]) -> dict[str, Any]:
    """What the parsed request's wire form must be, for accepted arguments."""
    questions = []
    for item in raw["questions"]:
        wire = {key: item[key] for key in ("id", "question", "header") if key in item}
        if item.get("options"):
            wire["options"] = item["options"]
        if item.get("multi_select"):
            wire["multiSelect"] = True
        questions.append(wire)
    return {"questions": questions}


_PATH = re.compile(r"(arguments|questions(\[\d+\])?(\.\w+)?(\[\d+\])?(\.\w+)?|\w+|\[\".*?\"\]): \S")


def outcome(raw: object, **kwargs: Any) -> AskUserQuestionRequest | UserInteractionError:
    try:
        return parse_arguments(raw, **kwargs)
    except UserInteractionError as exc:
        return exc


def check_arguments(raw: object, limits: ToolLimits | None = None) -> None:
    """parse_arguments accepts exactly the schema-valid arguments that keep the cross-field
    rules, returns what they say, and otherwise raises INVALID_REQUEST with a path."""
    if isinstance(raw, str):
        raw = {"questions": raw}  # a str is JSON text to parse_arguments: tested below
    schema = Draft202012Validator(tool.parameters(limits))
    expected_ok = schema.is_valid(raw) and not _breaks_a_cross_field_rule(raw)  # type: ignore[arg-type]
    result = outcome(raw, limits=limits)
    again = outcome(json.dumps(raw), limits=limits)
    if isinstance(result, UserInteractionError):
        assert result.code == INVALID_REQUEST
        assert _PATH.match(result.message), result.message
        assert not expected_ok, result.message
        assert isinstance(again, UserInteractionError)
        assert again.message == result.message
    else:
        assert expected_ok
        validate_request(result)
        assert result.to_dict() == _wire(raw)  # type: ignore[arg-type]
        assert again == result


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@_SETTINGS
@given(json_values)
def test_property_any_json_value(raw: object) -> None:
    check_arguments(raw)


@pytest.mark.slow
@_SETTINGS
@given(near_valid())
def test_property_near_valid_arguments(raw: object) -> None:
    check_arguments(raw)


@pytest.mark.slow
@_SETTINGS
@given(
    near_valid(),
    st.builds(
        ToolLimits,
        max_questions=st.none() | st.integers(1, 3),
        max_options=st.none() | st.integers(1, 3),
        max_header_length=st.none() | st.integers(1, 4),
        max_preview_length=st.none() | st.integers(1, 12),
    ),
)
def test_property_near_valid_arguments_with_limits(raw: object, limits: ToolLimits) -> None:
    check_arguments(raw, limits)


@pytest.mark.slow
@_SETTINGS
@given(st.text() | st.binary())
def test_property_any_string(raw: str | bytes) -> None:
    result = outcome(raw)
    if isinstance(result, UserInteractionError):
        assert result.code == INVALID_REQUEST
        assert result.message.startswith(("arguments: ", "questions"))
    else:
        validate_request(result)


@pytest.mark.slow
@_SETTINGS
@given(st.text())
def test_property_any_id_text(text: str) -> None:
    result = outcome({"questions": [{"id": text, "question": "?"}]})
    if text.replace("\x00", "").strip():  # NUL bytes are blank too
        assert isinstance(result, AskUserQuestionRequest)
        assert result.questions[0].id == text
    else:
        assert isinstance(result, UserInteractionError)
        assert result.message == "questions[0].id: must not be blank"
