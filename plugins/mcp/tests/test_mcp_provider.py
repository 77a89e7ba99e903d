"""McpProvider with the real SDK on both ends, in process, at 2025-11-25 (``legacy``) and
2026-07-28 (``auto``): answers, refusals, strict reading of what the client sends back,
and the cases where no form can be sent."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_server_support import (
    MODES,
    NAME,
    PKG,
    STEPS,
    Human,
    accept,
    build_server,
    connect,
    outcome,
    run,
)
from user_interaction_mcp import McpProvider, interactive

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


async def call(
    mode: str, human: Human | None, tool: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    server, _, _ = build_server()
    async with connect(server, mode, human) as client:
        return outcome(await client.call_tool(tool, arguments or {}))


def ask_with(mode: str, questions: list[dict[str, Any]], *answers: mcp_types.ElicitResult) -> Any:
    human = Human(None, *answers)
    return run(call(mode, human, "ask", {"questions": questions})), human


# -- check 1: answers ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_single_select_answer(mode: str) -> None:
    result, human = ask_with(mode, [PKG], accept({"q0": "pnpm"}))
    assert result == {"answers": [{"id": "pkg", "selected": ["pnpm"]}]}
    assert len(human.forms) == 1
    message, schema = human.forms[0]
    assert message == "[Setup] Which package manager?"
    option = schema["properties"]["q0"]["oneOf"][1]
    assert option == {"const": "pnpm", "title": "pnpm — fast, strict"}


@pytest.mark.parametrize("mode", MODES)
def test_multi_select_custom_and_free_text_in_one_form(mode: str) -> None:
    content = {"q0": "npm", "q0_other": "use z", "q1": ["lint", "test"], "q2": "Shed"}
    result, human = ask_with(mode, [PKG, STEPS, NAME], accept(content))
    assert result == {
        "answers": [
            {"id": "pkg", "selected": [], "custom": "use z"},
            {"id": "steps", "selected": ["lint", "test"]},
            {"id": "name", "selected": [], "custom": "Shed"},
        ]
    }
    assert [message for message, _ in human.forms] == ["The agent has 3 questions for you."]


@pytest.mark.parametrize("mode", MODES)
def test_empty_content_skips_every_question(mode: str) -> None:
    result, _ = ask_with(mode, [PKG, STEPS, NAME], accept({}))
    assert result == {
        "answers": [
            {"id": "pkg", "selected": []},
            {"id": "steps", "selected": []},
            {"id": "name", "selected": []},
        ]
    }


@pytest.mark.parametrize("mode", MODES)
def test_blank_and_null_fields_are_skips(mode: str) -> None:
    content = {"q0": "", "q0_other": "   ", "q1": None, "q2": " \n"}
    result, _ = ask_with(mode, [PKG, STEPS, NAME], accept(content))
    assert [item["selected"] for item in result["answers"]] == [[], [], []]
    assert all("custom" not in item for item in result["answers"])


# -- check 2: the human says no ------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("action", "code"), [("decline", ASK_DECLINED), ("cancel", ASK_CANCELLED)])
def test_decline_and_cancel(mode: str, action: Any, code: str) -> None:
    result, human = ask_with(mode, [PKG], mcp_types.ElicitResult(action=action))
    assert result["error"] == code
    assert len(human.forms) == 1


# -- check 3: content that does not fit the form -------------------------------------------

INVALID = [
    pytest.param({"q0": ["npm"]}, id="list-in-single-select"),
    pytest.param({"q1": "lint"}, id="text-in-multi-select"),
    pytest.param({"q1": "lint,test"}, id="comma-text-in-multi-select"),
    pytest.param({"q2": 3}, id="number-in-text"),
    pytest.param({"q2": True}, id="boolean-in-text"),
    pytest.param({"q0_other": ["x"]}, id="list-in-other"),
    pytest.param({"zzz": 1}, id="unknown-key"),
    pytest.param({"q2_other": "x"}, id="other-of-a-question-without-options"),
    pytest.param({"q0": "maybe"}, id="unoffered-label"),
    pytest.param({"q1": ["lint", "lint"]}, id="duplicate-pick"),
    pytest.param(None, id="accept-without-content"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("content", INVALID)
def test_content_that_does_not_fit_is_invalid_answer(mode: str, content: Any) -> None:
    result, _ = ask_with(mode, [PKG, STEPS, NAME], accept(content))
    assert result["error"] == INVALID_ANSWER, result


CONTROLS = "\x1b[2J\x1b]0;owned\x07\u202e"
HUGE = CONTROLS + "x" * 100_000
HOSTILE = [
    # text is data: kept exactly (beyond surrounding whitespace), whatever it contains
    pytest.param({"q2": HUGE}, [None, None, HUGE], id="huge-text-with-controls"),
    pytest.param(
        {"q0": "pnpm", "q0_other": " 🙂" * 1000},
        ["🙂" + " 🙂" * 999, None, None],
        id="unicode-other-replaces-choice",
    ),
    # a key the form did not contain, however close, is refused
    pytest.param({"q0": "pnpm", "__proto__": "x"}, INVALID_ANSWER, id="prototype-key"),
    pytest.param({"q0": "pnpm", "q0 ": "x"}, INVALID_ANSWER, id="near-miss-key"),
    pytest.param({"Q0": "pnpm"}, INVALID_ANSWER, id="case-miss-key"),
    pytest.param({"q0": CONTROLS}, INVALID_ANSWER, id="unoffered-label-with-controls"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("content", "expected"), HOSTILE)
def test_hostile_content_is_read_as_data_or_refused(mode: str, content: Any, expected: Any) -> None:
    result, _ = ask_with(mode, [PKG, STEPS, NAME], accept(content))
    if isinstance(expected, str):
        assert result["error"] == expected, result
    else:
        assert [item.get("custom") for item in result["answers"]] == expected


def test_a_client_error_reply_is_provider_failed() -> None:
    """A reply outside the protocol (an object where only primitives are allowed) is
    refused by the SDK client itself, which answers with an error: the ask fails with
    ``PROVIDER_FAILED`` quoting it, and the tool sees no answer."""
    result, _ = ask_with("legacy", [PKG], accept({"q0": {"nested": ["x"]}}))
    assert result["error"] == PROVIDER_FAILED, result
    assert "elicitation/create with error" in result["message"]


# -- check 4: abort and timeout withdraw the form (legacy) -----------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [("abortable", {"after": 0.2}, ASK_ABORTED), ("timed", {"timeout": 0.2}, ASK_TIMEOUT)],
    ids=["abort", "timeout"],
)
def test_abort_and_timeout_withdraw_the_form_and_cancel_the_client_callback(
    tool: str, arguments: dict[str, Any], code: str
) -> None:
    async def forever(message: str, schema: dict[str, Any]) -> mcp_types.ElicitResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def scenario() -> tuple[dict[str, Any], Human]:
        human = Human(forever)
        server, _, _ = build_server()
        async with connect(server, "legacy", human) as client:
            result = outcome(await client.call_tool(tool, arguments))
            await asyncio.wait_for(human.cancelled.wait(), 10)
        return result, human

    result, human = run(scenario())
    assert result["error"] == code
    assert human.cancelled.is_set()
    assert len(human.forms) == 1


# -- check 6: no form can be sent -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_undecorated_tool_fails_naming_the_fix_and_sends_nothing(mode: str) -> None:
    human = Human(None, accept({"q0": "npm"}))
    result = run(call(mode, human, "undecorated", {"questions": [PKG]}))
    assert result["error"] == PROVIDER_FAILED
    assert "@user_interaction_mcp.interactive" in result["message"]
    assert human.forms == []


@pytest.mark.parametrize("mode", MODES)
def test_client_without_form_elicitation_fails_naming_the_fix(mode: str) -> None:
    result = run(call(mode, None, "ask", {"questions": [PKG]}))
    assert result["error"] == PROVIDER_FAILED
    assert "elicitation" in result["message"]
    assert "another provider" in result["message"]


def test_ask_outside_any_tool_fails_naming_the_fix() -> None:
    ui = UserInteraction()
    ui.register_provider(McpProvider())
    request = AskUserQuestionRequest([AskUserQuestionItem("q", "Why?")])
    with pytest.raises(UserInteractionError) as caught:
        ui.ask_sync(request)
    assert caught.value.code == PROVIDER_FAILED
    assert "interactive" in str(caught.value)
    ui.close()


# -- the provider's face ---------------------------------------------------------------------


def test_provider_is_never_chosen_implicitly_and_is_found_by_name() -> None:
    assert McpProvider.available() is False
    assert McpProvider.name == "mcp"
    ui = UserInteraction()
    with ui.use("mcp"):
        assert isinstance(ui.provider, McpProvider)
    assert "mcp" in {info.name for info in ui.providers()}


def test_interactive_needs_a_context_parameter() -> None:
    async def tool(questions: list[str]) -> str:
        return ""

    with pytest.raises(TypeError, match="Context"):
        interactive(tool)


def test_interactive_keeps_the_tool_schema_without_the_context() -> None:
    server = MCPServer("schema")

    @server.tool()
    @interactive
    async def pick(colour: str, count: int, ctx: Context) -> str:
        """Pick a colour."""
        return colour * count

    async def scenario() -> Any:
        async with connect(server, "legacy", None) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("pick", {"colour": "ab", "count": 2})
            return tools, result

    tools, result = run(scenario())
    (tool,) = tools
    assert tool.description == "Pick a colour."
    assert set(tool.input_schema["properties"]) == {"colour", "count"}
    assert outcome_text(result) == "abab"


def outcome_text(result: mcp_types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text
