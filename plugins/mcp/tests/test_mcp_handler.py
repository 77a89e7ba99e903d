"""``elicitation_handler``: a real MCP server's elicitations answered through a UI.

The server (``mcp_client_support.form_server``) calls ``ctx.elicit`` with every
primitive kind; the client routes each elicitation to a ``ScriptedProvider``, in this
process and over stdio.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from mcp_client_support import PATIENCE, SERVER_NAME, call_json, connect
from mcp_types import ElicitRequestFormParams, ElicitResult
from user_interaction_mcp import elicitation_handler

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    PROVIDER_FAILED,
    AskUserQuestionRequest,
    UserInteraction,
)
from user_interaction.testing import SILENT, SKIP, ScriptedProvider, custom, reject, sequence

EVERYTHING: dict[str, Any] = {
    "name": "Ada",
    "age": "36",
    "ratio": custom("0.25"),
    "subscribe": "No",
    "email": "ada@example.org",
    "homepage": "https://example.org/ada",
    "birthday": "1815-12-10",
    "meeting": "2026-12-01T09:30:00Z",
    "nickname": "countess",
    "color": "green",
    "tags": ["lint", "docs"],
}


def ask_through(
    provider: ScriptedProvider,
    tool: str,
    *,
    where: str = "in-process",
    mode: str = "legacy",
    timeout: float | None = None,
    **arguments: Any,
) -> Any:
    """Call ``tool`` with the handler answering through ``provider``; its JSON result."""

    async def run() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            handler = elicitation_handler(ui, timeout=timeout)
            async with connect(where, mode, elicitation_callback=handler) as client:  # type: ignore[arg-type]
                return await call_json(client, tool, **arguments)

    return asyncio.run(run())


def raw(provider: ScriptedProvider, schema: dict[str, Any], **options: Any) -> Any:
    return ask_through(provider, "raw", schema={"type": "object", **schema}, **options)


def questions(request: AskUserQuestionRequest) -> dict[str, dict[str, Any]]:
    return {item.id: item.to_dict() for item in request.questions}


@pytest.mark.parametrize("where", ["in-process", "stdio"])
def test_every_primitive_kind_is_asked_once_and_comes_back_typed(where: str) -> None:
    provider = ScriptedProvider(EVERYTHING)
    result = ask_through(provider, "profile", where=where)
    assert result == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "age": 36,
            "ratio": 0.25,
            "subscribe": False,
            "email": "ada@example.org",
            "homepage": "https://example.org/ada",
            "birthday": "1815-12-10",
            "meeting": "2026-12-01T09:30:00Z",
            "nickname": "countess",
            "color": "green",
            "tags": ["lint", "docs"],
        },
    }
    [request] = provider.requests
    shown = questions(request)
    assert list(shown) == list(EVERYTHING)
    first = shown["name"]
    assert first["question"] == "Your name"
    assert first["header"] == SERVER_NAME
    assert first["detail"].split("\n\n") == [
        "Tell us about yourself.",
        "As on your badge.",
        "Required.",
    ]
    assert all("header" not in item for item in list(shown.values())[1:])
    assert shown["age"]["detail"] == "Required. A whole number from 0 to 150."
    assert "options" not in shown["age"]
    assert "options" not in shown["email"]
    assert [o["label"] for o in shown["subscribe"]["options"]] == ["Yes", "No"]
    assert [o["label"] for o in shown["color"]["options"]] == ["red", "green", "blue"]
    assert shown["tags"]["multiSelect"] is True
    assert shown["email"]["detail"] == "An email address."
    assert shown["nickname"]["detail"] == "Use 2 to 8 characters."


def test_skipped_optional_questions_are_left_out_of_the_content() -> None:
    provider = ScriptedProvider({"name": "Ada", "age": "7"}, default=SKIP)
    result = ask_through(provider, "profile")
    # the server fills in its own defaults for what the human skipped
    assert result["action"] == "accept"
    assert result["content"]["name"] == "Ada"
    assert result["content"]["age"] == 7
    assert result["content"]["subscribe"] is True
    assert result["content"]["tags"] == []


def test_a_value_that_does_not_fit_is_asked_again_with_the_reason() -> None:
    answers = dict(EVERYTHING, age=sequence("old", "151", "42"))
    provider = ScriptedProvider(answers)
    result = ask_through(provider, "profile")
    assert result["action"] == "decline"  # two misfits: asked twice, then declined
    assert len(provider.requests) == 2
    again = questions(provider.requests[1])
    assert list(again) == ["age"]
    assert again["age"]["header"] == SERVER_NAME
    assert again["age"]["detail"].startswith("'old' is not a whole number.\n\nTell us")

    provider = ScriptedProvider(dict(EVERYTHING, age=sequence("151", "42")))
    result = ask_through(provider, "profile")
    assert result["action"] == "accept"
    assert result["content"]["age"] == 42
    assert questions(provider.requests[1])["age"]["detail"].startswith(
        "151 is too large: A whole number from 0 to 150."
    )


def test_a_skipped_required_question_is_asked_again_then_cancels() -> None:
    provider = ScriptedProvider(dict(EVERYTHING, name=sequence(SKIP, "Ada")))
    assert ask_through(provider, "profile")["content"]["name"] == "Ada"
    assert questions(provider.requests[1])["name"]["detail"].startswith(
        "This question needs an answer."
    )

    provider = ScriptedProvider(dict(EVERYTHING, name=SKIP))
    assert ask_through(provider, "profile") == {"action": "cancel"}
    assert len(provider.requests) == 2


@pytest.mark.parametrize(
    ("code", "action"),
    [(ASK_DECLINED, "decline"), (ASK_CANCELLED, "cancel"), (ASK_ABORTED, "cancel")],
)
def test_errors_of_the_ask_map_to_decline_or_cancel(code: str, action: str) -> None:
    provider = ScriptedProvider(default=reject(code))
    assert ask_through(provider, "profile") == {"action": action}


def test_a_timed_out_ask_cancels() -> None:
    provider = ScriptedProvider(default=SILENT)
    assert ask_through(provider, "profile", timeout=0.05) == {"action": "cancel"}


def test_a_withdrawn_elicitation_ends_the_ask_in_the_ui() -> None:
    ended = threading.Event()

    async def never(question: object) -> str:
        try:
            await asyncio.sleep(3600)
        finally:
            ended.set()  # the provider's task was cancelled: nothing outlives the form
        return "x"

    provider = ScriptedProvider(default=never)
    started = time.monotonic()
    assert ask_through(provider, "hurry", seconds=0.2) == {"action": "withdrawn"}
    assert ended.is_set()
    assert len(provider.requests) == 1
    assert time.monotonic() - started < PATIENCE


def test_any_other_error_cancels_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    provider = ScriptedProvider(default=reject(PROVIDER_FAILED, "the screen broke"))
    with caplog.at_level(logging.ERROR, logger="user_interaction_mcp"):
        assert ask_through(provider, "profile") == {"action": "cancel"}
    [record] = [r for r in caplog.records if r.name == "user_interaction_mcp"]
    assert "PROVIDER_FAILED" in record.getMessage()
    assert SERVER_NAME in record.getMessage()


def test_an_unanswered_script_is_an_error_that_cancels(caplog: pytest.LogCaptureFixture) -> None:
    provider = ScriptedProvider({"name": "Ada"})  # nothing for the others
    with caplog.at_level(logging.ERROR, logger="user_interaction_mcp"):
        assert ask_through(provider, "profile") == {"action": "cancel"}
    assert "UNANSWERED_QUESTION" in caplog.text


def test_titled_one_of_shows_titles_and_returns_the_const() -> None:
    schema = {
        "properties": {
            "pm": {
                "type": "string",
                "title": "Package manager",
                "oneOf": [
                    {"const": "pnpm", "title": "pnpm — fast, strict"},
                    {"const": "npm", "title": "npm"},
                ],
            },
            "checks": {
                "type": "array",
                "items": {
                    "anyOf": [{"const": "u", "title": "Unit"}, {"const": "e", "title": "E2E"}]
                },
                "minItems": 1,
            },
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        },
        "required": ["checks"],
    }
    provider = ScriptedProvider(
        {"pm": "pnpm — fast, strict", "checks": ["E2E", "Unit"], "legacy": custom("beta")}
    )
    assert raw(provider, schema) == {
        "action": "accept",
        "content": {"pm": "pnpm", "checks": ["e", "u"], "legacy": "b"},
    }
    shown = questions(provider.requests[0])
    assert [o["label"] for o in shown["pm"]["options"]] == ["pnpm — fast, strict", "npm"]
    assert shown["checks"]["detail"] == "Required. Choose at least 1 option."


def test_a_required_multi_select_answered_with_nothing_is_checked_against_min_items() -> None:
    schema = {
        "properties": {
            "tags": {"type": "array", "items": {"enum": ["x", "y"]}, "minItems": 1},
            "more": {"type": "array", "items": {"enum": ["x", "y"]}},
        },
        "required": ["tags", "more"],
    }
    provider = ScriptedProvider({"tags": sequence([], ["y"]), "more": []})
    assert raw(provider, schema) == {"action": "accept", "content": {"tags": ["y"], "more": []}}
    assert questions(provider.requests[1])["tags"]["detail"].startswith("Choose at least 1 option.")


def test_a_boolean_lists_its_default_first_and_reads_typed_words() -> None:
    schema = {
        "properties": {
            "force": {"type": "boolean", "default": False},
            "ok": {"type": "boolean"},
            "maybe": {"type": "boolean"},
        }
    }
    provider = ScriptedProvider({"force": "Yes", "ok": custom(" TRUE "), "maybe": custom("n")})
    assert raw(provider, schema)["content"] == {"force": True, "ok": True, "maybe": False}
    shown = questions(provider.requests[0])
    assert [o["label"] for o in shown["force"]["options"]] == ["No", "Yes"]
    assert shown["force"]["detail"] == "Please answer.\n\nDefault: No."
    assert [o["label"] for o in shown["ok"]["options"]] == ["Yes", "No"]


@pytest.mark.parametrize(
    ("spec", "bad", "good", "value", "reason"),
    [
        ({"format": "email"}, "ada-at-example", "ada@example.org", "ada@example.org", "email"),
        ({"format": "uri"}, "example dot org", "https://e.org/x", "https://e.org/x", "URI"),
        ({"format": "date"}, "2026-02-30", "2026-02-28", "2026-02-28", "date like"),
        ({"format": "date-time"}, "tomorrow", "2026-02-28T10:00:00+01:00", None, "date and"),
        ({"minLength": 3}, "ab", "abc", "abc", "at least 3 characters"),
        ({"maxLength": 2}, "abc", "ab", "ab", "at most 2 characters"),
    ],
)
def test_string_formats_and_lengths_are_checked(
    spec: dict[str, Any], bad: str, good: str, value: str | None, reason: str
) -> None:
    schema = {"properties": {"field": {"type": "string", **spec}}}
    provider = ScriptedProvider({"field": sequence(bad, good)})
    result = raw(provider, schema)
    assert result == {"action": "accept", "content": {"field": value or good}}
    assert reason in questions(provider.requests[1])["field"]["detail"].split("\n")[0]


@pytest.mark.parametrize(
    ("spec", "answers", "value"),
    [
        ({"type": "integer"}, ["4.5", "4.0"], 4),
        ({"type": "integer", "minimum": 1}, ["0", "1"], 1),
        ({"type": "number", "exclusiveMinimum": 0}, ["0", "1e-3"], 0.001),
        ({"type": "number", "maximum": 10}, ["nan", "-3"], -3),
        ({"type": "number", "exclusiveMaximum": 1}, ["1", "0.5"], 0.5),
        # digits of other scripts, full-width digits: int() and float() read them, people
        # and servers do not expect them to be numbers
        ({"type": "integer"}, ["\u0663", "3"], 3),
        ({"type": "number"}, ["\uff11.5", "1.5"], 1.5),
    ],
)
def test_numbers_are_converted_and_bounded(
    spec: dict[str, Any], answers: list[str], value: float
) -> None:
    provider = ScriptedProvider({"n": sequence(*answers)})
    result = raw(provider, {"properties": {"n": spec}})
    assert result == {"action": "accept", "content": {"n": value}}
    assert type(result["content"]["n"]) is type(value)


def test_a_form_without_properties_asks_to_accept_or_decline() -> None:
    provider = ScriptedProvider({"confirm": "Accept"})
    assert raw(provider, {"properties": {}}, message="Proceed?") == {
        "action": "accept",
        "content": {},
    }
    assert questions(provider.requests[0])["confirm"]["question"] == "Proceed?"
    assert raw(ScriptedProvider({"confirm": "Decline"}), {"properties": {}}) == {
        "action": "decline",
        "content": None,
    }


@pytest.mark.parametrize("where", ["in-process", "stdio"])
def test_a_url_elicitation_shows_the_address_with_done_and_cancel(where: str) -> None:
    provider = ScriptedProvider({"url": "Done"})
    url = "https://auth.example.org/sign-in?session=1"
    assert ask_through(provider, "visit", where=where, url=url) == {"action": "accept"}
    [request] = provider.requests
    [item] = request.questions
    assert item.question == "Sign in to continue."
    assert item.header == SERVER_NAME
    assert item.detail is not None
    assert item.detail.endswith("\n" + url)
    assert [option.label for option in item.options] == ["Done", "Cancel"]

    provider = ScriptedProvider({"url": "Cancel"})
    assert ask_through(provider, "visit", url=url) == {"action": "cancel"}


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "http://[::1", "https://a b", "https:x"]
)
def test_a_url_that_is_not_a_web_address_is_declined_without_asking(url: str) -> None:
    provider = ScriptedProvider({"url": "Done"})
    assert ask_through(provider, "visit", url=url) == {"action": "decline"}
    assert provider.requests == []


HOSTILE = {
    "nested object": {"properties": {"a": {"type": "object", "properties": {}}}},
    "unknown type": {"properties": {"a": {"type": "blob"}}},
    "type list": {"properties": {"a": {"type": ["string", "null"]}}},
    "array of objects": {"properties": {"a": {"type": "array", "items": {"type": "object"}}}},
    "array without enum": {"properties": {"a": {"type": "array", "items": {"type": "string"}}}},
    "huge enum": {"properties": {"a": {"type": "string", "enum": [str(i) for i in range(5000)]}}},
    "many properties": {"properties": {f"p{i}": {"type": "string"} for i in range(500)}},
    "integer enum": {"properties": {"a": {"type": "string", "enum": [1, 2]}}},
    "repeated enum value": {"properties": {"a": {"type": "string", "enum": ["x", "x"]}}},
    "empty enum": {"properties": {"a": {"type": "string", "enum": []}}},
    "blank property name": {"properties": {" ": {"type": "string"}}},
    "property not a schema": {"properties": {"a": 5}},
    "bad minimum": {"properties": {"a": {"type": "number", "minimum": "0"}}},
    "negative maxLength": {"properties": {"a": {"type": "string", "maxLength": -1}}},
    "oneOf without const": {"properties": {"a": {"type": "string", "oneOf": [{"title": "x"}]}}},
    "blank const": {"properties": {"a": {"type": "string", "enum": ["", " "]}}},
}


@pytest.mark.parametrize("schema", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_schema_is_declined_without_asking(
    schema: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    provider = ScriptedProvider(default="x")
    with caplog.at_level(logging.WARNING, logger="user_interaction_mcp"):
        assert raw(provider, schema) == {"action": "decline", "content": None}
    assert provider.requests == []
    [record] = [r for r in caplog.records if r.name == "user_interaction_mcp"]
    assert record.getMessage().startswith(f"declined an elicitation from {SERVER_NAME!r}: ")


def test_the_session_goes_on_after_a_hostile_schema() -> None:
    provider = ScriptedProvider({"a": "fine"})

    async def run() -> list[Any]:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            handler = elicitation_handler(ui)
            async with connect("in-process", elicitation_callback=handler) as client:  # type: ignore[arg-type]
                bad = await call_json(
                    client, "raw", schema={"type": "object", **HOSTILE["nested object"]}
                )
                good = await call_json(
                    client,
                    "raw",
                    schema={"type": "object", "properties": {"a": {"type": "string"}}},
                )
                return [bad, good]

    assert asyncio.run(run()) == [
        {"action": "decline", "content": None},
        {"action": "accept", "content": {"a": "fine"}},
    ]


# Shapes the SDK itself refuses on the wire (its strict request model): the handler,
# called directly as another client library might, still declines them.
MALFORMED = {
    "not an object": ["a"],
    "not of type object": {"type": "array", "properties": {}},
    "properties not an object": {"type": "object", "properties": ["a"]},
    "required not names": {"type": "object", "properties": {}, "required": "a"},
}


@pytest.mark.parametrize("schema", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_schema_is_declined_when_called_directly(schema: Any) -> None:
    provider = ScriptedProvider(default="x")
    params = ElicitRequestFormParams(message="m", requested_schema={})
    params.requested_schema = schema
    context = SimpleNamespace(session=SimpleNamespace(server_info=None))

    async def run() -> ElicitResult:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            return await elicitation_handler(ui)(context, params)  # type: ignore[arg-type]

    assert asyncio.run(run()) == ElicitResult(action="decline")
    assert provider.requests == []


def test_titles_that_collide_are_told_apart_by_value() -> None:
    schema = {
        "properties": {
            "a": {
                "type": "string",
                "oneOf": [{"const": "1", "title": "X"}, {"const": "2", "title": "X"}],
            }
        }
    }
    provider = ScriptedProvider({"a": "X (2)"})
    assert raw(provider, schema)["content"] == {"a": "2"}


@pytest.mark.parametrize("where", ["in-process", "stdio"])
def test_the_2026_07_28_round_trip_goes_through_the_same_handler(where: str) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    provider = ScriptedProvider({"n": "12"})
    result = ask_through(provider, "rounds", where=where, mode="auto", schema=schema)
    assert result == {"action": "accept", "content": {"n": 12}}


def test_a_form_seen_before_is_asked_the_same_and_a_changed_one_anew() -> None:
    provider = ScriptedProvider({"a": "1", "b": "Yes"})
    first = {"type": "object", "properties": {"a": {"type": "integer"}}}
    changed = {"type": "object", "properties": {"a": {"type": "string"}}}
    other = {"type": "object", "properties": {"b": {"type": "boolean"}}}

    async def run() -> list[Any]:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            handler = elicitation_handler(ui)
            async with connect("in-process", elicitation_callback=handler) as client:  # type: ignore[arg-type]
                return [
                    await call_json(client, "raw", schema=first),
                    await call_json(client, "raw", schema=first, message="Again."),
                    await call_json(client, "raw", schema=changed),
                    await call_json(client, "raw", schema=other),
                    await call_json(client, "raw", schema=first),
                ]

    assert [result["content"] for result in asyncio.run(run())] == [
        {"a": 1},
        {"a": 1},
        {"a": "1"},
        {"b": True},
        {"a": 1},
    ]
    details = [request.questions[0].detail for request in provider.requests]
    assert details == [
        "Please answer.\n\nA whole number.",
        "Again.\n\nA whole number.",
        "Please answer.",
        "Please answer.",
        "Please answer.\n\nA whole number.",
    ]
