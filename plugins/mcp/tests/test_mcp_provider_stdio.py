"""Check 9: the same scripted answers give the same results in process and over stdio
(the support server as a subprocess), in both protocol modes."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types
import pytest
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
    stdio_params,
)

from user_interaction import ASK_ABORTED, ASK_CANCELLED, ASK_DECLINED, INVALID_ANSWER


def refuse(action: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action=action)


#: (tool, arguments, the human's replies, the expected result)
SCENARIOS: list[tuple[str, dict[str, Any], tuple[mcp_types.ElicitResult, ...], dict[str, Any]]] = [
    ("setup", {}, SETUP_ANSWERS, SETUP_RESULT),
    (
        "ask",
        {"questions": [PKG, STEPS, NAME]},
        (accept({"q0_other": "use z", "q1": ["docs"]}),),
        {
            "answers": [
                {"id": "pkg", "selected": [], "custom": "use z"},
                {"id": "steps", "selected": ["docs"]},
                {"id": "name", "selected": []},
            ]
        },
    ),
    (
        "ask_sync",
        {"questions": [PKG]},
        (accept({"q0": "npm"}),),
        {"answers": [{"id": "pkg", "selected": ["npm"]}]},
    ),
    ("ask", {"questions": [PKG]}, (refuse("decline"),), {"error": ASK_DECLINED}),
    ("ask", {"questions": [PKG]}, (refuse("cancel"),), {"error": ASK_CANCELLED}),
    ("ask", {"questions": [PKG]}, (accept({"q0": ["npm"]}),), {"error": INVALID_ANSWER}),
    ("ask", {"questions": [PKG]}, (accept({"zzz": 1}),), {"error": INVALID_ANSWER}),
]


async def play(server: Any, mode: str) -> list[dict[str, Any]]:
    human = Human(None, *[reply for _, _, replies, _ in SCENARIOS for reply in replies])
    results = []
    async with connect(server, mode, human) as client:
        for tool, arguments, _, _ in SCENARIOS:
            result = outcome(await client.call_tool(tool, arguments))
            results.append({k: v for k, v in result.items() if k != "message"})
    return results


@pytest.mark.parametrize("mode", MODES)
def test_the_same_answers_in_process_and_over_stdio(mode: str) -> None:
    expected = [result for _, _, _, result in SCENARIOS]
    in_process = run(play(build_server()[0], mode))
    over_stdio = run(play(stdio_params(), mode), timeout=60)
    assert in_process == expected
    assert over_stdio == expected


def test_abort_over_stdio_cancels_the_client_callback() -> None:
    async def forever(message: str, schema: dict[str, Any]) -> mcp_types.ElicitResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def scenario() -> tuple[dict[str, Any], Human]:
        human = Human(forever)
        async with connect(stdio_params(), "legacy", human) as client:
            result = outcome(await client.call_tool("abortable", {"after": 0.2}))
            await asyncio.wait_for(human.cancelled.wait(), 10)
        return result, human

    result, human = run(scenario(), timeout=60)
    assert result["error"] == ASK_ABORTED
    assert human.cancelled.is_set()
