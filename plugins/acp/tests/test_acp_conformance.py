"""The provider conformance suite of user-interaction, run against AcpProvider, with and
without notes fields: the simulated human fills in the form on the SDK's own client side
(in-process transport)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

import pytest
from acp import connect_to_agent
from acp._transport import memory_transport_pair
from acp.core import AgentSideConnection
from acp.interfaces import Agent, Client
from acp_support import Pending, ScriptedClient, capabilities
from user_interaction_acp import AcpBridge, AcpProvider

from user_interaction import AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class InTurn:
    """AcpProvider asked inside a prompt turn of one session, as an agent's code asks."""

    name = "acp"

    def __init__(self, bridge: AcpBridge, *, notes: bool) -> None:
        self._bridge = bridge
        self._provider = AcpProvider(notes=notes)

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        with self._bridge.turn("conformance"):
            return await self._provider.ask(request)


class Form:
    """A form on the client's screen and what the human has filled in so far."""

    def __init__(self, pending: Pending) -> None:
        self.pending = pending
        self.content: dict[str, Any] = {}
        self.done: set[str] = set()  # choice fields of the questions acted on
        self.questions = [
            name
            for name, field in pending.properties.items()
            if field.get("title") not in ("Other answer", "Notes")
        ]

    def field_of(self, question: AskUserQuestionItem) -> str | None:
        for name in self.questions:
            if self.pending.properties[name]["title"].endswith(question.question):
                return name
        return None


class AcpDriver(ConformanceDriver):
    """The human in an editor: each question is a field of the request's one form, which
    is submitted once every question has been acted on."""

    notes = False  # whether the provider's forms have notes fields

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._forms: list[Form] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._keep: list[object] = []

    async def make_provider(self) -> InTurn:
        self._loop = asyncio.get_running_loop()
        agent_end, client_end = memory_transport_pair()
        # an agent that handles no requests: only its connection to the client is used
        agent_connection = AgentSideConnection(cast("Agent", object()), agent_end)
        client = ScriptedClient()
        client_connection = connect_to_agent(
            cast("Client", client),
            client_end,
            use_unstable_protocol=True,
            observers=[client.observe],
        )
        self._keep += [
            agent_connection,
            client_connection,
            asyncio.ensure_future(self._show(client)),
        ]
        bridge = AcpBridge(agent_connection, client_capabilities=capabilities(True))
        return InTurn(bridge, notes=self.notes)

    async def _show(self, client: ScriptedClient) -> None:
        while True:
            pending = await client.requests.get()
            with self._lock:
                self._forms.append(Form(pending))

    def _find(self, question: AskUserQuestionItem) -> tuple[Form, str]:
        with self._lock:
            for form in reversed(self._forms):
                name = form.field_of(question)
                if name is not None and not form.pending.future.done():
                    return form, name
        raise AssertionError(f"{question.question!r} is not on screen")

    def _reply(self, form: Form, reply: Callable[[Pending], None]) -> None:
        """Reply to ``form`` on the client's event loop (the driver acts from a thread)."""

        def act() -> None:
            if not form.pending.future.done():
                reply(form.pending)

        assert self._loop is not None
        self._loop.call_soon_threadsafe(act)

    def _fill(self, question: AskUserQuestionItem, values: dict[str, Any]) -> None:
        form, name = self._find(question)
        with self._lock:
            form.content.update(values)
            form.done.add(name)
            complete = len(form.done) == len(form.questions)
        if complete:
            self._reply(form, lambda pending: pending.accept(form.content))

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        _, name = self._find(question)
        self._fill(question, {name: list(labels) if question.multi_select else labels[0]})

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        _, name = self._find(question)
        self._fill(question, {f"{name}_custom" if question.options else name: text})

    def skip(self, question: AskUserQuestionItem) -> None:
        self._fill(question, {})

    def cancel(self, question: AskUserQuestionItem) -> None:
        form, _ = self._find(question)
        self._reply(form, Pending.cancel)

    def decline(self, question: AskUserQuestionItem) -> None:
        form, _ = self._find(question)
        self._reply(form, Pending.decline)

    def screen_text(self) -> str:
        with self._lock:
            return "\n".join(
                json.dumps(form.pending.params, ensure_ascii=False) for form in self._forms
            )


class AcpNotesDriver(AcpDriver):
    """The same human, with a provider whose forms have a notes field per question."""

    notes = True

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        form, name = self._find(question)
        assert f"{name}_notes" in form.pending.properties, "the form has no notes field"
        choice = list(labels) if question.multi_select else labels[0]
        self._fill(question, {name: choice, f"{name}_notes": notes})


class TestAcpConformance(ProviderConformance):
    @pytest.fixture(params=[AcpDriver, AcpNotesDriver], ids=["plain", "notes"])
    def driver(self, request: pytest.FixtureRequest) -> AcpDriver:
        driver: AcpDriver = request.param()
        return driver
