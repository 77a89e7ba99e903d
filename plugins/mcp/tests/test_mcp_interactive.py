"""``@interactive`` with the real SDK: mid-tool asks at 2025-11-25, replay through
``InputRequiredResult`` and the sealed ``request_state`` at 2026-07-28."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types
import pytest
from mcp.shared.exceptions import MCPError
from mcp_server_support import (
    MODES,
    NAME,
    PKG,
    SETUP_ANSWERS,
    SETUP_RESULT,
    STEPS,
    Human,
    accept,
    build_server,
    connect,
    outcome,
    run,
)

from user_interaction import ASK_DECLINED, PROVIDER_FAILED


@pytest.mark.parametrize("mode", MODES)
def test_two_asks_one_after_the_other(mode: str) -> None:
    """Check 5: each form is shown once; at 2026-07-28 the body runs once per form plus
    once to finish (3), at 2025-11-25 once."""

    async def scenario() -> tuple[dict[str, Any], Human, dict[str, int]]:
        human = Human(None, *SETUP_ANSWERS)
        server, probe, _ = build_server()
        async with connect(server, mode, human) as client:
            result = outcome(await client.call_tool("setup", {}))
            assert probe.provider.active == 0  # no ask outlived its round
        return result, human, probe.runs

    result, human, runs = run(scenario())
    assert result == SETUP_RESULT
    assert [message for message, _ in human.forms] == [
        "[Setup] Which package manager?",
        "The agent has 2 questions for you.",
    ]
    assert runs["setup"] == (3 if mode == "auto" else 1)


@pytest.mark.parametrize("mode", MODES)
def test_sync_tool_asks_with_ask_sync(mode: str) -> None:
    async def scenario() -> tuple[dict[str, Any], Human, dict[str, int]]:
        human = Human(None, accept({"q0": "yarn"}))
        server, probe, ui = build_server()
        try:
            async with connect(server, mode, human) as client:
                result = outcome(await client.call_tool("ask_sync", {"questions": [PKG]}))
                assert probe.provider.active == 0  # the parked ask in the thread ended
        finally:
            await ui.aclose()
        return result, human, probe.runs

    result, human, runs = run(scenario())
    assert result == {"answers": [{"id": "pkg", "selected": ["yarn"]}]}
    assert len(human.forms) == 1
    assert runs["ask_sync"] == (2 if mode == "auto" else 1)


@pytest.mark.parametrize("mode", MODES)
def test_a_declined_ask_replays_as_declined(mode: str) -> None:
    """A tool that catches the decline and asks again gets the decline again in every
    later round (it is recorded), and the second form's answer."""

    async def scenario() -> tuple[dict[str, Any], Human]:
        human = Human(None, mcp_types.ElicitResult(action="decline"), accept({"q0": "Shed"}))
        server, _, _ = build_server()
        async with connect(server, mode, human) as client:
            result = outcome(await client.call_tool("after_decline", {}))
        return result, human

    result, human = run(scenario())
    first, second = result["rounds"]
    assert first["error"] == ASK_DECLINED
    assert second == {"answers": [{"id": "name", "selected": [], "custom": "Shed"}]}
    assert len(human.forms) == 2


def test_asks_at_once_work_at_2025_11_25() -> None:
    async def reply(message: str, schema: dict[str, Any]) -> mcp_types.ElicitResult:
        return accept({"q0": "npm"} if "oneOf" in schema["properties"]["q0"] else {"q0": "x"})

    async def scenario() -> dict[str, Any]:
        server, _, _ = build_server()
        async with connect(server, "legacy", Human(reply)) as client:
            return outcome(await client.call_tool("at_once", {}))

    first, second = run(scenario())["rounds"]
    assert first == {"answers": [{"id": "pkg", "selected": ["npm"]}]}
    assert second == {"answers": [{"id": "name", "selected": [], "custom": "x"}]}


def test_asks_at_once_fail_at_2026_07_28_naming_the_fix() -> None:
    async def scenario() -> tuple[dict[str, Any], Human]:
        human = Human(None, accept({"q0": "npm"}), accept({"q0": "x"}))
        server, _, _ = build_server()
        async with connect(server, "auto", human) as client:
            return outcome(await client.call_tool("at_once", {})), human

    result, human = run(scenario())
    assert "Two asks ran at once" in result["tool_error"]
    assert "one after the other" in result["tool_error"]
    assert human.forms == []


# -- rounds driven by hand: the sealed request_state -----------------------------------------


async def first_round(client: Any, tool: str, arguments: dict[str, Any]) -> Any:
    result = await client.session.call_tool(tool, arguments, allow_input_required=True)
    assert isinstance(result, mcp_types.InputRequiredResult), result
    return result


async def refused_retry(
    client: Any, arguments: dict[str, Any], responses: dict[str, Any], request_state: str
) -> MCPError:
    """The error of an ``ask`` retry the server refuses (it must refuse it)."""
    with pytest.raises(MCPError) as caught:
        await client.session.call_tool(
            "ask",
            arguments,
            input_responses=responses,
            request_state=request_state,
            allow_input_required=True,
        )
    return caught.value


def test_round_one_returns_the_form_and_sealed_state() -> None:
    async def scenario() -> Any:
        server, _, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            return await first_round(client, "setup", {})

    result = run(scenario())
    (key,) = result.input_requests
    assert key == "ask0"
    request = result.input_requests[key]
    assert isinstance(request, mcp_types.ElicitRequest)
    assert request.params.message == "[Setup] Which package manager?"
    assert result.request_state.startswith("v1.")  # sealed by MCPServer, not our JSON
    assert "Setup" not in result.request_state
    assert "ask0" not in result.request_state


def tamper(state: str) -> str:
    index = len(state) // 2
    flipped = "A" if state[index] != "A" else "B"
    return state[:index] + flipped + state[index + 1 :]


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(tamper, id="bit-flipped"),
        pytest.param(lambda state: json.dumps({"user_interaction_mcp": 1}), id="forged-plain"),
    ],
)
def test_tampered_request_state_is_refused_and_the_tool_never_sees_the_answer(forge: Any) -> None:
    """Check 7: a forged or modified state fails the retry with an MCPError."""

    async def scenario() -> tuple[Any, list[dict[str, Any]], dict[str, int]]:
        server, probe, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            first = await first_round(client, "ask", {"questions": [PKG]})
            error = await refused_retry(
                client,
                {"questions": [PKG]},
                {"ask0": accept({"q0": "npm"})},
                forge(first.request_state),
            )
        return error, probe.seen, probe.runs

    error, seen, runs = run(scenario())
    assert "Invalid or expired requestState" in str(error)
    assert seen == []
    assert runs["ask"] == 1


def test_expired_request_state_is_refused_and_the_tool_never_sees_the_answer() -> None:
    async def scenario() -> tuple[Any, list[dict[str, Any]]]:
        server, probe, _ = build_server(ttl=1)
        async with connect(server, "auto", Human()) as client:
            first = await first_round(client, "ask", {"questions": [PKG]})
            await asyncio.sleep(1.5)  # a slow human
            error = await refused_retry(
                client,
                {"questions": [PKG]},
                {"ask0": accept({"q0": "npm"})},
                first.request_state,
            )
        return error, probe.seen

    error, seen = run(scenario())
    assert "Invalid or expired requestState" in str(error)
    assert seen == []


def test_state_of_other_arguments_is_refused() -> None:
    """The sealed state is bound to the call: replaying it with other arguments fails."""

    async def scenario() -> tuple[Any, list[dict[str, Any]]]:
        server, probe, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            first = await first_round(client, "ask", {"questions": [PKG]})
            error = await refused_retry(
                client,
                {"questions": [STEPS]},
                {"ask0": accept({"q0": ["lint"]})},
                first.request_state,
            )
        return error, probe.seen

    error, seen = run(scenario())
    assert "Invalid or expired requestState" in str(error)
    assert seen == []


def test_a_request_state_is_accepted_once() -> None:
    """Replaying a used state (within its sealed lifetime) would re-run the tool's side
    effects on an old answer without asking anybody: the second use is refused before the
    tool runs."""

    async def scenario() -> tuple[Any, Any, dict[str, int]]:
        server, probe, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            first = await first_round(client, "ask", {"questions": [PKG]})
            retry = {
                "input_responses": {"ask0": accept({"q0": "npm"})},
                "request_state": first.request_state,
                "allow_input_required": True,
            }
            done = await client.session.call_tool("ask", {"questions": [PKG]}, **retry)
            replayed = await client.session.call_tool("ask", {"questions": [PKG]}, **retry)
        return done, replayed, dict(probe.runs)

    done, replayed, runs = run(scenario())
    assert not done.is_error
    assert replayed.is_error
    assert "used already" in replayed.content[0].text
    assert runs["ask"] == 2  # the first round and its one retry


def test_a_changed_question_never_takes_the_old_answer() -> None:
    """The tool's question differs on each run: the answer to the first form is not
    given to the second, which is asked for instead."""

    async def scenario() -> tuple[Any, list[dict[str, Any]]]:
        server, probe, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            first = await first_round(client, "changing", {})
            second = await client.session.call_tool(
                "changing",
                {},
                input_responses={"ask0": accept({"q0": "an answer to run 1"})},
                request_state=first.request_state,
                allow_input_required=True,
            )
        return (first, second), probe.seen

    (first, second), seen = run(scenario())
    assert seen == []
    assert isinstance(second, mcp_types.InputRequiredResult)
    assert message_of(first) == "Run number 1?"
    assert message_of(second) == "Run number 2?"


def message_of(result: mcp_types.InputRequiredResult) -> str:
    assert result.input_requests is not None
    request = result.input_requests["ask0"]
    assert isinstance(request, mcp_types.ElicitRequest)
    return request.params.message


def test_an_answer_without_state_is_not_taken() -> None:
    """``input_responses`` the server never asked for (no state) do not answer an ask."""

    async def scenario() -> tuple[Any, list[dict[str, Any]]]:
        server, probe, _ = build_server()
        async with connect(server, "auto", Human()) as client:
            result = await client.session.call_tool(
                "ask",
                {"questions": [NAME]},
                input_responses={"ask0": accept({"q0": "unsolicited"})},
                allow_input_required=True,
            )
        return result, probe.seen

    result, seen = run(scenario())
    assert isinstance(result, mcp_types.InputRequiredResult)
    assert seen == []


def test_a_call_outside_any_request_fails_naming_the_fix() -> None:
    """``MCPServer.call_tool`` without a request (a direct call in code): nothing to bind,
    so the ask fails with ``PROVIDER_FAILED`` instead of reaching a missing session."""

    async def scenario() -> Any:
        server, _, _ = build_server()
        return await server.call_tool("ask", {"questions": [PKG]})

    result = outcome(run(scenario()))
    assert result["error"] == PROVIDER_FAILED
    assert "interactive" in result["message"]
