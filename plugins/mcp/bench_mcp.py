"""Benchmark of the mcp provider: a report, never a test.

``python plugins/mcp/bench_mcp.py [--rounds N]`` prints, side by side in one run, the
median of an in-process tool call -> form -> answer round trip at 2025-11-25 (``legacy``):

- through ``McpProvider`` (``await ui.ask(...)`` in an ``@interactive`` tool);
- the same SDK round trip with a hand-written ``ctx.session.elicit_form`` in the tool;

and their ratio (target <= 1.5x): of the medians, the median of each back-to-back pair's
ratio (steady on a loaded machine) and of the minimums. For information it adds the
provider's 2026-07-28 (``auto``) round trip, which is two tool calls (the form, then the
answer). The connect is not measured; the two kinds of call alternate so both see the same
machine load. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

os.environ.setdefault("USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD", "1")

import mcp
import mcp_types
from mcp.server.mcpserver import Context, MCPServer
from user_interaction_mcp import McpProvider, interactive

from user_interaction import (
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
)

REQUEST = AskUserQuestionRequest(
    [
        AskUserQuestionItem(
            "pkg",
            "Which package manager?",
            header="Setup",
            options=[AskUserQuestionOption("npm"), AskUserQuestionOption("pnpm", "fast")],
        )
    ]
)
#: What the hand-written tool sends: the same form the provider renders for REQUEST.
MESSAGE = "[Setup] Which package manager?"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "q0": {
            "type": "string",
            "title": MESSAGE,
            "oneOf": [{"const": "npm", "title": "npm"}, {"const": "pnpm", "title": "pnpm — fast"}],
        },
        "q0_other": {
            "type": "string",
            "title": "Other (your own answer)",
            "description": "Replaces the choice above.",
        },
    },
}


def build() -> tuple[MCPServer, UserInteraction]:
    server = MCPServer("bench")
    ui = UserInteraction()
    ui.register_provider(McpProvider())

    @server.tool()
    @interactive
    async def provider(ctx: Context) -> str:
        answer = await ui.ask(REQUEST)
        return answer.answers[0].selected[0]

    @server.tool()
    async def by_hand(ctx: Context) -> str:
        result = await ctx.session.elicit_form(MESSAGE, SCHEMA, related_request_id=ctx.request_id)
        content = result.content or {}
        if result.action != "accept" or not isinstance(content.get("q0"), str):
            raise ValueError("no answer")
        return str(content["q0"])

    return server, ui


async def human(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"q0": "pnpm"})


async def timed(client: mcp.Client, tool: str) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, {})
    elapsed = time.perf_counter() - started
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent), result
    assert block.text == "pnpm", result
    return elapsed


def report(name: str, samples: list[float]) -> float:
    us = [s * 1e6 for s in samples]
    median = statistics.median(us)
    print(
        f"{name:<52} median {median:8.0f} us   (min {min(us):.0f}, max {max(us):.0f}, n={len(us)})"
    )
    return median


async def main(rounds: int) -> None:
    server, _ = build()
    provider: list[float] = []
    by_hand: list[float] = []
    async with mcp.Client(server, mode="legacy", elicitation_callback=human) as client:
        for _ in range(20):  # warm up both paths
            await timed(client, "provider")
            await timed(client, "by_hand")
        for _ in range(rounds):
            provider.append(await timed(client, "provider"))
            by_hand.append(await timed(client, "by_hand"))
    auto: list[float] = []
    async with mcp.Client(server, mode="auto", elicitation_callback=human) as client:
        for _ in range(20):
            await timed(client, "provider")
        for _ in range(rounds):
            auto.append(await timed(client, "provider"))
    print(f"in-process round trip: tool call -> form -> answer ({rounds} rounds each)")
    ours = report("legacy, through McpProvider (@interactive, ui.ask)", provider)
    theirs = report("legacy, hand-written ctx.session.elicit_form", by_hand)
    paired = statistics.median(p / h for p, h in zip(provider, by_hand))
    print(f"{'ratio of the medians, provider / hand-written':<52} {ours / theirs:6.2f}x")
    print(f"{'median of the paired ratios (robust to load bursts)':<52} {paired:6.2f}x")
    print(f"{'ratio of the minimums':<52} {min(provider) / min(by_hand):6.2f}x   (target <= 1.5x)")
    report("2026-07-28 (auto), through McpProvider: 2 calls", auto)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    asyncio.run(main(parser.parse_args().rounds))
