"""The provider conformance suite of user-interaction, run against McpProvider over a real
2025-11-25 MCP session in process.

The suite asks through ``UserInteraction`` directly, not from inside a tool; so the driver
opens an SDK client, calls an ``@interactive`` tool that holds its call open, and makes the
suite's asks belong to that call (the binding ``@interactive`` sets). The simulated human
is the client's ``elicitation_callback``: each form waits until the driver acts on every
question in it, then returns the reply."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import mcp
import mcp_types
import pytest
from mcp.client.session import ClientRequestContext
from mcp.server.mcpserver import Context, MCPServer
from user_interaction_mcp import McpProvider, interactive
from user_interaction_mcp._interactive import _BINDING, Binding, current_binding

from user_interaction import AskUserQuestionItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class _Form:
    """One elicitation the client was sent, until the driver replies to it."""

    def __init__(self, message: str, schema: dict[str, Any]) -> None:
        self.message = message
        self.schema = schema
        self.content: dict[str, Any] = {}
        self.acted: set[str] = set()
        self.reply: asyncio.Future[mcp_types.ElicitResult] = (
            asyncio.get_running_loop().create_future()
        )

    def field(self, question: AskUserQuestionItem) -> str | None:
        for name, prop in self.schema["properties"].items():
            if not name.endswith("_other") and prop["title"].endswith(question.question):
                return str(name)
        return None

    def has_options(self, name: str) -> bool:
        prop = self.schema["properties"][name]
        return "oneOf" in prop or "items" in prop

    def act(self, name: str, values: dict[str, Any]) -> None:
        self.content.update(values)
        self.acted.add(name)
        questions = [n for n in self.schema["properties"] if not n.endswith("_other")]
        if self.acted >= set(questions):
            self.settle(mcp_types.ElicitResult(action="accept", content=self.content))

    def settle(self, result: mcp_types.ElicitResult) -> None:
        if not self.reply.done():
            self.reply.set_result(result)


class _HostedProvider(McpProvider):
    """McpProvider whose disposal also ends the tool call the driver holds open."""

    def __init__(self, driver: McpDriver) -> None:
        self._driver = driver

    async def dispose(self) -> None:
        await self._driver.close()


class McpDriver(ConformanceDriver):
    def __init__(self) -> None:
        self._forms: list[_Form] = []
        self._release: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None

    async def make_provider(self) -> McpProvider:
        release = self._release = asyncio.Event()
        bound: asyncio.Future[Binding] = asyncio.get_running_loop().create_future()
        server = MCPServer("conformance")

        @server.tool()
        @interactive
        async def hold(ctx: Context) -> str:
            binding = current_binding()
            assert binding is not None
            bound.set_result(binding)
            await release.wait()
            return "released"

        async def serve() -> None:
            async with mcp.Client(server, mode="legacy", elicitation_callback=self._elicit) as c:
                await c.call_tool("hold", {})

        self._runner = asyncio.ensure_future(serve())
        _BINDING.set(await bound)  # the suite's asks belong to the held call
        return _HostedProvider(self)

    async def close(self) -> None:
        if self._release is not None and self._runner is not None:
            self._release.set()
            await self._runner

    async def _elicit(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        assert isinstance(params, mcp_types.ElicitRequestFormParams)
        form = _Form(params.message, params.requested_schema)
        self._forms.append(form)
        return await form.reply

    def _find(self, question: AskUserQuestionItem) -> tuple[_Form, str] | None:
        for form in reversed(self._forms):
            name = form.field(question)
            if name is not None and not form.reply.done():
                return form, name
        return None

    def _open(self, question: AskUserQuestionItem) -> tuple[_Form, str]:
        found = self._find(question)
        assert found is not None, f"{question.question!r} is not in an open form"
        return found

    async def wait_until_shown(self, question: AskUserQuestionItem) -> None:
        while self._find(question) is None:  # noqa: ASYNC110 -- forms arrive by callback
            await asyncio.sleep(0.005)

    async def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        form, name = self._open(question)
        multi = "items" in form.schema["properties"][name]
        form.act(name, {name: list(labels) if multi else labels[0]})

    async def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        form, name = self._open(question)
        form.act(name, {f"{name}_other" if form.has_options(name) else name: text})

    async def skip(self, question: AskUserQuestionItem) -> None:
        form, name = self._open(question)
        form.act(name, {})

    async def cancel(self, question: AskUserQuestionItem) -> None:
        self._open(question)[0].settle(mcp_types.ElicitResult(action="cancel"))

    async def decline(self, question: AskUserQuestionItem) -> None:
        self._open(question)[0].settle(mcp_types.ElicitResult(action="decline"))

    def screen_text(self) -> str:
        return "\n".join(
            json.dumps({"message": f.message, "schema": f.schema}, ensure_ascii=False)
            for f in list(self._forms)
        )


class TestMcpConformance(ProviderConformance):
    @pytest.fixture
    def driver(self) -> McpDriver:
        return McpDriver()
