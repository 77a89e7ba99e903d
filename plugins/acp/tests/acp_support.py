"""Test kit: a scripted ACP client on the SDK's own client side, a recording agent on the
provider, and the two ways to connect them (in-process transport, stdio subprocess)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import importlib.util
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Coroutine
from pathlib import Path
from typing import Any, TypeVar, cast

from acp import PROTOCOL_VERSION, connect_to_agent, run_agent, spawn_agent_process, text_block
from acp._transport import memory_transport_pair  # the SDK's in-process transport
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    CancelElicitationResponse,
    ClientCapabilities,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationFormSessionMode,
    ElicitationMode,
    PermissionOption,
    PromptResponse,
    RequestPermissionResponse,
    StopReason,
    ToolCallUpdate,
)
from acp.transports import default_environment

from user_interaction import AskUserQuestionAnswer, AskUserQuestionRequest, UserInteractionError

T = TypeVar("T")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ask_agent.py"
WAIT = 10.0  # seconds any single step may take before a test fails instead of hanging


def run(coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
    """Run one test scenario on a fresh event loop, failing it if it hangs."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


async def within(awaitable: Awaitable[T], timeout: float = WAIT) -> T:
    """``awaitable``'s result, failing the test instead of hanging after ``timeout``."""
    return await asyncio.wait_for(awaitable, timeout)


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("ask_agent_example", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _load_example()
AskingAgent: Any = example.AskingAgent


def prompt_text(*questions: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"questions": list(questions), **extra})


def capabilities(form: bool) -> ClientCapabilities:
    if not form:
        return ClientCapabilities()
    return ClientCapabilities(
        elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
    )


# -- the client side -----------------------------------------------------------------------


class Pending:
    """A request the agent sent the client, waiting for the test to reply."""

    def __init__(self, message: dict[str, Any]) -> None:
        self.method: str = message["method"]
        self.params: dict[str, Any] = message["params"]
        self.request_id: Any = message["id"]
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    @property
    def session_id(self) -> str:
        return str(self.params["sessionId"])

    @property
    def schema(self) -> dict[str, Any]:
        return dict(self.params["requestedSchema"])

    @property
    def properties(self) -> dict[str, Any]:
        return dict(self.schema["properties"])

    def reply(self, response: Any) -> None:
        self.future.set_result(response)

    def fail(self, error: BaseException) -> None:
        self.future.set_exception(error)

    # elicitation replies
    def accept(self, content: dict[str, Any] | None) -> None:
        self.reply(AcceptElicitationResponse(action="accept", content=content))

    def decline(self) -> None:
        self.reply(DeclineElicitationResponse(action="decline"))

    def cancel(self) -> None:
        self.reply(CancelElicitationResponse(action="cancel"))

    # permission replies
    def select(self, label: str) -> None:
        for option in self.params["options"]:
            if option["name"] == label:
                self.select_id(option["optionId"])
                return
        raise AssertionError(f"no option named {label!r} in {self.params['options']}")

    def select_id(self, option_id: str) -> None:
        self.reply(
            RequestPermissionResponse(
                outcome=AllowedOutcome(outcome="selected", option_id=option_id)
            )
        )

    def dismiss(self) -> None:
        self.reply(RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled")))


class ScriptedClient:
    """An ACP client whose user is the test: every form and permission prompt waits in a
    queue for the test to answer it; raw traffic is observed, ``$/cancel_request`` too."""

    def __init__(self) -> None:
        self.requests: asyncio.Queue[Pending] = asyncio.Queue()
        self.incoming: list[dict[str, Any]] = []
        self.withdrawals: asyncio.Queue[Any] = asyncio.Queue()
        self.messages: dict[str, list[str]] = {}
        self._unclaimed: dict[str, collections.deque[dict[str, Any]]] = {
            "elicitation/create": collections.deque(),
            "session/request_permission": collections.deque(),
        }

    # the client's methods, called by the SDK
    async def create_elicitation(self, message: str, mode: ElicitationMode, **kwargs: Any) -> Any:
        assert isinstance(mode, ElicitationFormSessionMode)
        return await self._wait("elicitation/create")

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        response: RequestPermissionResponse = await self._wait("session/request_permission")
        return response

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        text = getattr(getattr(update, "content", None), "text", None)
        if text is not None:
            self.messages.setdefault(session_id, []).append(text)

    async def _wait(self, method: str) -> Any:
        # The SDK starts handlers in the order the requests arrived, before they first
        # wait: the oldest unclaimed request of this method is the one being handled.
        message = self._unclaimed[method].popleft()
        pending = Pending(message)
        self.requests.put_nowait(pending)
        return await pending.future

    # watching the wire
    def observe(self, event: Any) -> None:
        if event.direction.value != "incoming":
            return
        message = event.message
        self.incoming.append(message)
        if "id" in message and message.get("method") in self._unclaimed:
            self._unclaimed[message["method"]].append(message)
        if message.get("method") == "$/cancel_request":
            self.withdrawals.put_nowait(message["params"]["requestId"])

    def request_ids(self, method: str) -> list[Any]:
        return [m["id"] for m in self.incoming if m.get("method") == method and "id" in m]

    # for the test
    async def next_request(self, method: str | None = None) -> Pending:
        pending = await within(self.requests.get())
        if method is not None:
            assert pending.method == method, pending.method
        return pending

    async def next_form(self) -> Pending:
        return await self.next_request("elicitation/create")

    async def next_permission(self) -> Pending:
        return await self.next_request("session/request_permission")

    async def next_withdrawal(self) -> Any:
        return await within(self.withdrawals.get())

    def reply_of(self, session_id: str) -> dict[str, Any]:
        (text,) = self.messages[session_id]
        return dict(json.loads(text))


# -- the agent side ------------------------------------------------------------------------


class RecordingAgent(AskingAgent):  # type: ignore[misc]
    """The example agent, keeping every ask's outcome for the test to inspect.

    The prompt text may also choose how to ask: ``"how": "sync"`` calls ``ask_sync`` from a
    worker thread (the ask runs on the manager's own loop), ``"how": "agent"`` passes the
    turn as ``request.agent`` from a task outside the turn's context.
    """

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: list[asyncio.Future[Any]] = []
        self.asked = asyncio.Event()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        data = json.loads(text)
        how = data.pop("how", "await")
        timeout = data.pop("timeout", None)
        signal = data.pop("signal", True)  # pass the turn's signal as the request's
        request = AskUserQuestionRequest.from_dict(data)
        loop = asyncio.get_running_loop()
        with self.bridge.turn(session_id) as turn:
            if how == "sync":
                outcome = loop.create_future()
                self._ask_in_thread(loop, outcome, request, turn, timeout)
            elif how == "agent":  # from a task that does not inherit the turn's context
                coroutine = self._ask(request, turn, timeout, signal, agent=turn)
                outcome = contextvars.Context().run(loop.create_task, coroutine)
            else:
                outcome = loop.create_task(self._ask(request, turn, timeout, signal))
            self.outcomes.append(outcome)
            self.asked.set()
            stop_reason: StopReason = "end_turn"
            try:
                answer = await asyncio.shield(outcome)
                reply = json.dumps(answer.to_dict())
            except UserInteractionError as error:
                reply = json.dumps({"error": error.to_dict()})
                if turn.signal.aborted:
                    stop_reason = "cancelled"
        assert self._client is not None
        await self._client.session_update(session_id, example.update_agent_message_text(reply))
        return PromptResponse(stop_reason=stop_reason)

    async def _ask(
        self,
        request: AskUserQuestionRequest,
        turn: Any,
        timeout: float | None,
        signal: bool,
        agent: Any = None,
    ) -> AskUserQuestionAnswer:
        request = AskUserQuestionRequest(
            request.questions, agent=agent, signal=turn.signal if signal else None
        )
        answer: AskUserQuestionAnswer = await self.ui.ask(request, timeout=timeout)
        return answer

    def _ask_in_thread(
        self,
        loop: asyncio.AbstractEventLoop,
        outcome: asyncio.Future[Any],
        request: AskUserQuestionRequest,
        turn: Any,
        timeout: float | None,
    ) -> None:
        context = contextvars.copy_context()

        def work() -> None:
            try:
                result: tuple[bool, Any] = (
                    True,
                    context.run(
                        self.ui.ask_sync,
                        AskUserQuestionRequest(request.questions, signal=turn.signal),
                        timeout=timeout,
                    ),
                )
            except Exception as error:
                result = (False, error)

            def settle() -> None:
                if outcome.done():
                    return
                if result[0]:
                    outcome.set_result(result[1])
                else:
                    outcome.set_exception(result[1])

            try:
                loop.call_soon_threadsafe(settle)
            except RuntimeError:  # the test is over and its loop closed
                pass

        threading.Thread(target=work, daemon=True).start()

    async def next_outcome(self) -> Any:
        """The outcome (answer or exception) of the latest ask."""
        await within(self.asked.wait())
        self.asked.clear()
        outcome = self.outcomes[-1]
        try:
            return await within(asyncio.shield(outcome))
        except Exception as error:
            return error


class Harness:
    """A connected client and agent."""

    def __init__(
        self, connection: ClientSideConnection, client: ScriptedClient, agent: Any
    ) -> None:
        self.connection = connection
        self.client = client
        self.agent = agent

    async def new_session(self) -> str:
        response = await within(self.connection.new_session(cwd="/", mcp_servers=[]))
        return str(response.session_id)

    def prompt(self, session_id: str, text: str) -> asyncio.Task[PromptResponse]:
        """Start a prompt turn; the task ends with the agent's response."""
        return asyncio.ensure_future(
            self.connection.prompt(session_id=session_id, prompt=[text_block(text)])
        )

    async def cancel(self, session_id: str) -> None:
        await self.connection.cancel(session_id=session_id)


@contextlib.asynccontextmanager
async def in_process(
    *, form: bool = True, unstable: bool | None = None, agent: Any = None
) -> AsyncIterator[Harness]:
    """The recording agent and the scripted client over the SDK's in-process transport.

    ``form`` says whether the client advertises form elicitation; ``unstable`` whether it
    serves it (the SDK's ``use_unstable_protocol``), by default the same.
    """
    agent_end, client_end = memory_transport_pair()
    agent = RecordingAgent() if agent is None else agent
    agent_task = asyncio.ensure_future(run_agent(agent, agent_end))
    client = ScriptedClient()
    connection = connect_to_agent(
        cast("Client", client),
        client_end,
        use_unstable_protocol=form if unstable is None else unstable,
        observers=[client.observe],
    )
    try:
        await within(
            connection.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(form)
            )
        )
        yield Harness(connection, client, agent)
    finally:
        await connection.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(agent_task, WAIT)


_EXTENSION_SETTINGS = {
    key: value
    for key, value in os.environ.items()
    if key.startswith("USER_INTERACTION_") and "EXTENSION" in key
}


@contextlib.asynccontextmanager
async def over_stdio(
    *, form: bool = True, agent: Path = EXAMPLE
) -> AsyncIterator[tuple[Harness, Any]]:
    """The example agent (or the script ``agent``) as a child process, spoken to over its
    stdin and stdout."""
    client = ScriptedClient()
    # A client passes a trimmed environment (as the SDK does by default); keep the test
    # run's choice that the deliberately broken installed extensions are not autoloaded.
    env = {**default_environment(), **_EXTENSION_SETTINGS}
    async with spawn_agent_process(
        cast("Client", client),
        sys.executable,
        str(agent),
        use_unstable_protocol=form,
        observers=[client.observe],
        env=env,
    ) as (connection, process):
        await within(
            connection.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(form)
            ),
            30.0,
        )
        yield Harness(connection, client, None), process
