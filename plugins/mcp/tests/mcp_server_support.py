"""A real MCP server whose tools ask through ``McpProvider``, and a scripted human for the
SDK client's ``elicitation_callback``: shared by the in-process tests, the stdio server
script (``mcp_stdio_server.py``) and the benchmark."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import mcp
import mcp_types
from mcp.client.session import ClientRequestContext
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from user_interaction_mcp import McpProvider, interactive

from user_interaction import (
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import wire_question
from user_interaction.tool import parse_arguments, render_answer

__all__ = [
    "MODES",
    "NAME",
    "PKG",
    "SCRIPT",
    "SETUP_ANSWERS",
    "SETUP_RESULT",
    "STEPS",
    "CountingProvider",
    "Human",
    "Probe",
    "RawResult",
    "accept",
    "build_server",
    "connect",
    "outcome",
    "run",
    "stdio_params",
]

T = TypeVar("T")

#: The client modes every behaviour is checked in: 2025-11-25 and 2026-07-28.
MODES = ("legacy", "auto")
#: The stdio server script the subprocess tests start.
SCRIPT = Path(__file__).with_name("mcp_stdio_server.py")

# The questions as the model-facing tool takes them (``multi_select``).
PKG = wire_question(
    "pkg",
    "Which package manager?",
    "npm",
    "pnpm",
    "yarn",
    header="Setup",
    descriptions={"pnpm": "fast, strict"},
)
STEPS = wire_question(
    "steps", "Which CI steps?", "lint", "test", "docs", multi=True, tool_form=True
)
NAME = wire_question("name", "What is the project called?")


class CountingProvider(McpProvider):
    """McpProvider that counts its calls still running (from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        with self._lock:
            self.active += 1
        try:
            return await super().ask(request)
        finally:
            with self._lock:
                self.active -= 1


class Probe:
    """What the server's tools did: body runs per tool, every answer they saw, and the
    provider (to see that no ask outlives its round)."""

    def __init__(self, provider: CountingProvider) -> None:
        self.runs: dict[str, int] = {}
        self.seen: list[dict[str, Any]] = []
        self.provider = provider

    def ran(self, tool: str) -> None:
        self.runs[tool] = self.runs.get(tool, 0) + 1


def _reply(result: AskUserQuestionAnswer | UserInteractionError) -> str:
    if isinstance(result, UserInteractionError):
        return json.dumps({"error": result.code, "message": str(result)})
    return render_answer(result)


def outcome(result: mcp_types.CallToolResult) -> dict[str, Any]:
    """A tool result of the support server as data: ``{"answers": ...}`` or
    ``{"error": CODE, "message": ...}`` (or ``{"tool_error": text}`` for an ``isError``)."""
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent), result
    if result.is_error:
        return {"tool_error": block.text}
    data = json.loads(block.text)
    assert isinstance(data, dict)
    return data


def build_server(
    name: str = "ui-test", *, ttl: float | None = None
) -> tuple[MCPServer, Probe, UserInteraction]:
    """An ``MCPServer`` whose tools ask through ``McpProvider`` on their own context."""
    security = None if ttl is None else RequestStateSecurity.ephemeral(ttl=ttl)
    server = MCPServer(name, request_state_security=security)
    ui = UserInteraction()
    provider = CountingProvider()
    ui.register_provider(provider)
    probe = Probe(provider)

    async def asked(questions: list[dict[str, Any]], **options: Any) -> str:
        try:
            answer = await ui.ask(parse_arguments({"questions": questions}), **options)
        except UserInteractionError as error:
            return _reply(error)
        probe.seen.append(answer.to_dict())
        return _reply(answer)

    @server.tool()
    @interactive
    async def ask(questions: list[dict[str, Any]], ctx: Context) -> str:
        """One ask of the given questions (the ask_user_question arguments)."""
        probe.ran("ask")
        return await asked(questions)

    @server.tool()
    @interactive
    def ask_sync(questions: list[dict[str, Any]], ctx: Context) -> str:
        """The same from a sync tool, on a worker thread, with ``ask_sync``."""
        probe.ran("ask_sync")
        try:
            answer = ui.ask_sync(parse_arguments({"questions": questions}))
        except UserInteractionError as error:
            return _reply(error)
        probe.seen.append(answer.to_dict())
        return _reply(answer)

    @server.tool()
    async def undecorated(questions: list[dict[str, Any]], ctx: Context) -> str:
        """Forgot @interactive: the provider cannot know the call."""
        return await asked(questions)

    @server.tool()
    @interactive
    async def setup(ctx: Context) -> str:
        """Two asks one after the other: a package manager, then the steps and a name."""
        probe.ran("setup")
        replies = [await asked([PKG]), await asked([STEPS, NAME])]
        return json.dumps({"rounds": [json.loads(reply) for reply in replies]})

    @server.tool()
    @interactive
    async def after_decline(ctx: Context) -> str:
        """Catches the first ask's outcome (say a decline) and asks again."""
        probe.ran("after_decline")
        first = json.loads(await asked([PKG]))
        second = json.loads(await asked([NAME]))
        return json.dumps({"rounds": [first, second]})

    @server.tool()
    @interactive
    async def changing(ctx: Context) -> str:
        """Not idempotent: its question changes on every run."""
        probe.ran("changing")
        question = {"id": "n", "question": f"Run number {probe.runs['changing']}?"}
        return await asked([question])

    @server.tool()
    @interactive
    async def at_once(ctx: Context) -> str:
        """Two asks at the same time (gather)."""
        probe.ran("at_once")
        replies = await asyncio.gather(asked([PKG]), asked([NAME]))
        return json.dumps({"rounds": [json.loads(reply) for reply in replies]})

    @server.tool()
    @interactive
    async def abortable(after: float, ctx: Context) -> str:
        """Asks, and aborts the ask ``after`` seconds later."""
        controller = AbortController()
        asyncio.get_running_loop().call_later(after, controller.abort)
        request = AskUserQuestionRequest(
            [AskUserQuestionItem("wait", "Will you answer?")], signal=controller.signal
        )
        started = time.perf_counter()
        try:
            await ui.ask(request)
        except UserInteractionError as error:
            elapsed = time.perf_counter() - started
            return json.dumps({"error": error.code, "elapsed": elapsed})
        return json.dumps({"error": None})

    @server.tool()
    @interactive
    async def timed(timeout: float, ctx: Context) -> str:
        """Asks with a timeout."""
        return await asked([NAME], timeout=timeout)

    return server, probe, ui


Reply = Callable[
    [str, dict[str, Any]], "mcp_types.ElicitResult | Awaitable[mcp_types.ElicitResult]"
]


class Human:
    """The ``elicitation_callback`` of a test client: records every form it is shown and
    answers with ``reply(message, schema)`` (which may be async and wait forever)."""

    def __init__(self, reply: Reply | None = None, *answers: mcp_types.ElicitResult) -> None:
        self._reply = reply
        self._answers = list(answers)
        self.forms: list[tuple[str, dict[str, Any]]] = []
        self.cancelled = asyncio.Event()

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        assert isinstance(params, mcp_types.ElicitRequestFormParams), params
        self.forms.append((params.message, params.requested_schema))
        try:
            if self._reply is not None:
                result = self._reply(params.message, params.requested_schema)
                if not isinstance(result, mcp_types.ElicitResult):
                    result = await result
                return result
            return self._answers.pop(0)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


class RawResult(mcp_types.ElicitResult):
    """An elicitation result whose content is sent as it is, also what the protocol does
    not allow (a hostile or buggy client's reply)."""

    content: dict[str, Any] | None = None


def accept(content: dict[str, Any] | None) -> mcp_types.ElicitResult:
    """An ``accept`` carrying ``content`` exactly as given."""
    return RawResult(action="accept", content=content)


def run(coroutine: Awaitable[T], timeout: float = 30.0) -> T:
    """Run a test scenario on a fresh event loop, bounded."""

    async def bounded() -> T:
        return await asyncio.wait_for(coroutine, timeout)

    return asyncio.run(bounded())


def stdio_params() -> mcp.StdioServerParameters:
    """Start the support server as a subprocess speaking MCP on its stdin/stdout (with this
    environment: the SDK would pass only a few variables, and the tests' settings matter)."""
    return mcp.StdioServerParameters(
        command=sys.executable, args=[str(SCRIPT)], env=dict(os.environ)
    )


def connect(
    server: MCPServer | mcp.StdioServerParameters | str,
    mode: str,
    human: Human | None,
    **options: Any,
) -> mcp.Client:
    """An SDK client of ``server`` in ``mode``; without a human it has no elicitation."""
    if human is None:
        return mcp.Client(server, mode=mode, **options)
    return mcp.Client(server, mode=mode, elicitation_callback=human, **options)


#: The human's replies to the ``setup`` tool's two forms, and the tool's result.
SETUP_ANSWERS = (accept({"q0": "pnpm"}), accept({"q0": ["lint", "test"], "q1": "Shed"}))
SETUP_RESULT = {
    "rounds": [
        {"answers": [{"id": "pkg", "selected": ["pnpm"]}]},
        {
            "answers": [
                {"id": "steps", "selected": ["lint", "test"]},
                {"id": "name", "selected": [], "custom": "Shed"},
            ]
        },
    ]
}
