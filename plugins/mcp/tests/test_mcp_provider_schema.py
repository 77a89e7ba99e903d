"""Check 8: the form a request becomes, as the SDK client receives it, is valid JSON
Schema (Draft 2020-12) and, property by property, a titled enum or string shape of both
protocol versions, with nothing required; the design's titles and message rules hold."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]
import mcp_types._v2025_11_25 as v2025
import mcp_types._v2026_07_28 as v2026
import pytest
from mcp_server_support import (
    MODES,
    NAME,
    STEPS,
    Human,
    accept,
    build_server,
    connect,
    outcome,
    run,
)
from pydantic import BaseModel

PREVIEWED = {
    "id": "layout",
    "question": "Which layout?",
    "header": "UI",
    "options": [
        {"label": "grid", "description": "cards  in\nrows", "preview": "```\n[a][b]\n[c][d]\n```"},
        {"label": "list", "preview": "- a\n- b"},
    ],
}
DETAILED = {"id": "why", "question": "Why?", "header": "Reason"}


def shown_form(mode: str, questions: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    async def scenario() -> Human:
        human = Human(None, accept({}))
        server, _, _ = build_server()
        async with connect(server, mode, human) as client:
            result = outcome(await client.call_tool("ask", {"questions": questions}))
        assert "answers" in result, result
        return human

    human = run(scenario())
    (form,) = human.forms
    return form


def strict(model: type[BaseModel], data: dict[str, Any]) -> None:
    """``data`` is exactly a ``model``: it validates, and nothing was ignored."""
    parsed = model.model_validate(data)
    assert parsed.model_dump(by_alias=True, exclude_none=True) == data


@pytest.mark.parametrize("mode", MODES)
def test_every_property_is_a_primitive_shape_of_both_versions(mode: str) -> None:
    _, schema = shown_form(mode, [PREVIEWED, STEPS, NAME])
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert "required" not in schema
    properties = schema["properties"]
    assert list(properties) == ["q0", "q0_other", "q1", "q1_other", "q2"]
    for version in (v2025, v2026):
        strict(version.RequestedSchema, {"type": "object", "properties": properties})
        strict(version.TitledSingleSelectEnumSchema, properties["q0"])
        strict(version.TitledMultiSelectEnumSchema, properties["q1"])
        for name in ("q0_other", "q1_other", "q2"):
            strict(version.StringSchema, properties[name])


def test_titles_descriptions_and_previews() -> None:
    message, schema = shown_form("legacy", [PREVIEWED, STEPS, NAME])
    assert message == "The agent has 3 questions for you."
    properties = schema["properties"]
    q0, q1, other = properties["q0"], properties["q1"], properties["q0_other"]
    assert q0["title"] == "[UI] Which layout?"
    # the option description joins the title; the const stays the bare label
    assert q0["oneOf"] == [
        {"const": "grid", "title": "grid — cards in rows"},
        {"const": "list", "title": "list"},
    ]
    # previews travel as plain text in the question's description, fences removed
    assert q0["description"] == "grid:\n[a][b]\n[c][d]\n\nlist:\n- a\n- b"
    assert q1["title"] == "Which CI steps?"
    assert q1["items"] == {"anyOf": [{"const": x, "title": x} for x in ("lint", "test", "docs")]}
    assert "description" not in q1
    assert other == {
        "type": "string",
        "title": "Other (your own answer)",
        "description": "Replaces the choice above.",
    }
    assert schema["properties"]["q2"] == {"type": "string", "title": "What is the project called?"}


def test_one_question_is_its_own_message() -> None:
    message, schema = shown_form("legacy", [DETAILED])
    assert message == "[Reason] Why?"
    assert schema["properties"] == {"q0": {"type": "string", "title": "[Reason] Why?"}}


def test_answers_validate_against_the_form_and_unoffered_labels_do_not() -> None:
    _, schema = shown_form("legacy", [PREVIEWED, STEPS, NAME])
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate({"q0": "grid", "q1": ["lint", "docs"], "q2": "x"})
    validator.validate({})
    validator.validate({"q0_other": "my own"})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"q0": "maybe"})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"q1": "lint"})
