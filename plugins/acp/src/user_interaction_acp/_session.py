"""Where an ask goes: the agent's ACP connection and the session of the prompt turn.

An :class:`AcpBridge` belongs to one agent-side connection: it learns the client's
capabilities from ``initialize`` and hands out an :class:`AcpTurn` per prompt turn. Inside
``with bridge.turn(session_id):`` every ask made by that turn's code (in its task and the
tasks and threads it starts) goes to that session: the turn is found through a context
variable, so two sessions asking at once never see each other's questions. The turn's
``signal`` fires when the client sends ``session/cancel`` for the session.

The bridge also sends the requests: each runs as a task on the connection's event loop
and can be withdrawn, which sends ACP's ``$/cancel_request`` for it and drops the pending
reply, so a late one is ignored.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar, Token, copy_context
from types import TracebackType
from typing import Any, Final, Protocol, TypeVar, final

from acp.schema import (
    ClientCapabilities,
    CreateElicitationResponse,
    ElicitationMode,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from user_interaction import ASK_ABORTED, AbortController, AbortSignal, UserInteractionError

__all__ = ["AcpBridge", "AcpTurn", "ClientConnection", "current_turn"]

T = TypeVar("T")

#: The JSON-RPC notification that asks the peer to cancel one of our requests.
CANCEL_REQUEST: Final = "$/cancel_request"

_TURN_VAR: Final = "user_interaction_acp.turn"
_TURN: ContextVar[AcpTurn | None] = ContextVar(_TURN_VAR, default=None)
_SENDING: ContextVar[_Outgoing | None] = ContextVar("user_interaction_acp.sending", default=None)
#: JSON-RPC layers that already report their requests to :func:`_observe`.
_OBSERVED: weakref.WeakSet[Any] = weakref.WeakSet()


class ClientConnection(Protocol):
    """What the provider uses of the agent-side connection (``acp``'s
    ``AgentSideConnection``, which ``Agent.on_connect`` receives)."""

    async def create_elicitation(
        self, message: str, mode: ElicitationMode, **kwargs: Any
    ) -> CreateElicitationResponse: ...

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse: ...


class _Rpc(Protocol):
    """The JSON-RPC layer under an ``AgentSideConnection`` (its ``Connection``)."""

    def add_observer(self, observer: Callable[[Any], object]) -> None: ...

    async def send_notification(self, method: str, params: Any = None) -> None: ...


def current_turn() -> AcpTurn | None:
    """The prompt turn the running code belongs to (see :meth:`AcpBridge.turn`), if any."""
    turn = _TURN.get()
    if turn is None:
        # After UserInteraction.reload() this module is a new one, while the agent's bridge
        # (imported before) still sets the context variable of the old one: find it by name.
        for var, value in copy_context().items():
            if var.name == _TURN_VAR and var is not _TURN and is_turn(value):
                return value  # type: ignore[no-any-return]
    return turn


def is_turn(value: object) -> bool:
    """Whether ``value`` is an :class:`AcpTurn`, also one of this module before a reload."""
    kind = type(value)
    return kind is AcpTurn or (
        kind.__qualname__ == "AcpTurn" and kind.__module__ == AcpTurn.__module__
    )


class AcpBridge:
    """Connects the ``acp`` provider to one ACP connection, on the agent's side.

    Call :meth:`connect` from ``Agent.on_connect``, :meth:`set_client_capabilities` from
    ``Agent.initialize``, :meth:`cancel` from ``Agent.cancel``, and wrap the handling of
    each prompt in ``with bridge.turn(session_id):``.
    """

    def __init__(
        self,
        connection: ClientConnection | None = None,
        *,
        client_capabilities: ClientCapabilities | Mapping[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._connection: ClientConnection | None = None
        self._rpc: _Rpc | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._capabilities: ClientCapabilities | None = None
        self._form_refused = False
        self._turns: dict[str, weakref.WeakSet[AcpTurn]] = {}
        self._notifications: set[asyncio.Task[None]] = set()
        if connection is not None:
            self.connect(connection)
        if client_capabilities is not None:
            self.set_client_capabilities(client_capabilities)

    def __repr__(self) -> str:
        state = "connected" if self._connection is not None else "not connected"
        return f"<AcpBridge {state}, form elicitation: {self.supports_form}>"

    # -- set-up, called from the agent's handlers ----------------------------------------

    def connect(self, connection: ClientConnection) -> None:
        """Use ``connection`` (the agent-side connection) to reach the client."""
        self._connection = connection
        self._form_refused = False
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:  # not in a coroutine: learnt from the first turn instead
            self._loop = None
        # Withdrawing a request needs its JSON-RPC id and a raw `$/cancel_request`
        # notification. The SDK's public API has neither (up to 0.12.1, its newest release:
        # ext_notification() prefixes the method with "_", and no request id is exposed),
        # so use the JSON-RPC layer under the connection, when it is there; without it a
        # withdrawn request is only dropped on this side. `tox -e acp-latest` re-checks
        # this against each new SDK release.
        rpc: Any = getattr(connection, "_conn", None)
        self._rpc = None
        if callable(getattr(rpc, "add_observer", None)) and callable(
            getattr(rpc, "send_notification", None)
        ):
            self._rpc = rpc
            if rpc not in _OBSERVED:
                _OBSERVED.add(rpc)
                rpc.add_observer(_observe)

    @property
    def connection(self) -> ClientConnection | None:
        return self._connection

    def set_client_capabilities(
        self, capabilities: ClientCapabilities | Mapping[str, Any] | None
    ) -> None:
        """Record what the client advertised at ``initialize`` (a model or its wire dict)."""
        if capabilities is not None and not isinstance(capabilities, ClientCapabilities):
            capabilities = ClientCapabilities.model_validate(dict(capabilities))
        self._capabilities = capabilities
        self._form_refused = False

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        return self._capabilities

    @property
    def supports_form(self) -> bool:
        """Whether asks use one form (``elicitation/create``): the client advertised
        ``elicitation.form`` and has not answered it with "method not found"."""
        capabilities = self._capabilities
        elicitation = None if capabilities is None else capabilities.elicitation
        return elicitation is not None and elicitation.form is not None and not self._form_refused

    def refuse_form(self) -> None:
        """Stop using form elicitation on this connection (the client does not serve it)."""
        self._form_refused = True

    def turn(self, session_id: str, *, tool_call_id: str | None = None) -> AcpTurn:
        """A prompt turn of ``session_id``: enter it (``with`` or ``async with``) around the
        prompt handling, or pass it as ``AskUserQuestionRequest(agent=turn)``.

        ``tool_call_id`` ties the forms to a tool call the agent has reported.
        """
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                pass
        turn = AcpTurn(self, session_id, tool_call_id)
        with self._lock:
            self._turns.setdefault(session_id, weakref.WeakSet()).add(turn)
        return turn

    def cancel(self, session_id: str) -> None:
        """The client cancelled the session's prompt turn (``session/cancel``): abort its
        turns, which withdraws their pending questions (``ASK_ABORTED``)."""
        with self._lock:
            turns = list(self._turns.pop(session_id, ()))
        for turn in turns:
            turn.cancel()

    def _forget(self, turn: AcpTurn) -> None:
        with self._lock:
            turns = self._turns.get(turn.session_id)
            if turns is not None:
                turns.discard(turn)
                if not turns:
                    del self._turns[turn.session_id]

    # -- sending, used by the provider ---------------------------------------------------

    def require_connection(self) -> ClientConnection:
        connection = self._connection
        if connection is None:
            raise RuntimeError(
                "The AcpBridge has no connection: call bridge.connect(conn) in the agent's "
                "on_connect(conn)."
            )
        return connection

    async def request(self, send: Callable[[], Awaitable[T]], stop: AbortSignal) -> T:
        """Run ``send()`` (one request to the client) on the connection's loop and return
        its result, unless ``stop`` fires first: then the request is withdrawn and
        ``stop.error()`` raised. Leaving early in any other way (cancellation) withdraws
        it too."""
        here = asyncio.get_running_loop()
        there = self._loop if self._loop is not None and not self._loop.is_closed() else here
        outgoing = _Outgoing(self)

        async def exchange() -> T:
            outgoing.started = True
            _SENDING.set(outgoing)  # this task's own context: tells _observe whose id it is
            return await send()

        result: asyncio.Future[T]
        if there is here:
            result = outgoing.task = here.create_task(exchange())
        else:
            result = here.create_future()

            def start() -> None:
                task = outgoing.task = there.create_task(exchange())
                task.add_done_callback(lambda done: _hand_over(here, done, result))

            try:
                there.call_soon_threadsafe(start)
            except RuntimeError as exc:  # closed since the check above
                raise ConnectionError("The ACP connection's event loop has closed.") from exc
        result.add_done_callback(_consume)
        try:  # shielded: on abort the request is withdrawn below, not just cancelled
            return await stop.race(asyncio.shield(result))
        finally:
            if not result.done():
                if there is here:
                    self._withdraw(outgoing)
                else:
                    try:
                        there.call_soon_threadsafe(self._withdraw, outgoing)
                    except RuntimeError:  # its loop has closed: nothing left to withdraw
                        pass

    def _withdraw(self, outgoing: _Outgoing) -> None:
        """Withdraw a request (on the connection's loop): if it was sent, tell the client
        with ``$/cancel_request``; then stop waiting, so a late reply is ignored."""
        outgoing.withdrawn = True
        task = outgoing.task
        if task is None or task.done():
            return
        if not outgoing.started or self._rpc is None:
            task.cancel()  # not sent yet, or no way to tell the client
        elif outgoing.request_id is not None:
            self._cancel_sent(outgoing)
        # else: it is being sent; _observe withdraws it as soon as its id is known

    def _cancel_sent(self, outgoing: _Outgoing) -> None:
        if outgoing.notified:
            return
        outgoing.notified = True
        rpc = self._rpc
        if rpc is not None:
            notice = asyncio.ensure_future(
                rpc.send_notification(CANCEL_REQUEST, {"requestId": outgoing.request_id})
            )
            self._notifications.add(notice)
            notice.add_done_callback(self._notifications.discard)
            notice.add_done_callback(_consume)
        if outgoing.task is not None:
            outgoing.task.cancel()


class _Outgoing:
    """One request to the client: its task and, once sent, its JSON-RPC id."""

    __slots__ = ("bridge", "notified", "request_id", "started", "task", "withdrawn")

    def __init__(self, bridge: AcpBridge) -> None:
        self.bridge = bridge
        self.task: asyncio.Task[Any] | None = None
        self.request_id: object = None
        self.started = False
        self.withdrawn = False
        self.notified = False


def _observe(event: Any) -> None:
    """Connection observer: note the id of each request the provider sends.

    The SDK calls observers in the sending task right after a request went out, so the
    context variable tells which of the provider's requests it is.
    """
    outgoing = _SENDING.get()
    if outgoing is None or outgoing.request_id is not None:
        return
    message = getattr(event, "message", None)
    direction = getattr(event, "direction", None)
    if getattr(direction, "value", direction) != "outgoing" or not isinstance(message, dict):
        return
    if "method" not in message or "id" not in message:
        return
    outgoing.request_id = message["id"]
    if outgoing.withdrawn:
        outgoing.bridge._cancel_sent(outgoing)


@final
class AcpTurn:
    """One prompt turn of one ACP session: where the asks made during it go.

    Enter it around the prompt handling (``with`` or ``async with``), or pass it as the
    request's ``agent``. ``signal`` fires when the client cancels the turn.
    """

    __slots__ = ("__weakref__", "_bridge", "_controller", "_session_id", "_tokens", "_tool_call_id")

    def __init__(self, bridge: AcpBridge, session_id: str, tool_call_id: str | None) -> None:
        self._bridge = bridge
        self._session_id = session_id
        self._tool_call_id = tool_call_id
        self._controller = AbortController()
        self._tokens: list[Token[AcpTurn | None]] = []

    def __repr__(self) -> str:
        state = "cancelled" if self.signal.aborted else "active"
        return f"<AcpTurn session_id={self._session_id!r} {state}>"

    @property
    def bridge(self) -> AcpBridge:
        return self._bridge

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def tool_call_id(self) -> str | None:
        return self._tool_call_id

    @property
    def signal(self) -> AbortSignal:
        """Fires when the turn is cancelled (the client's ``session/cancel``): pass it as
        the request's ``signal`` so the caller stops at once too."""
        return self._controller.signal

    def cancel(self, reason: object = None) -> None:
        """Cancel the turn: its pending questions are withdrawn with ``ASK_ABORTED``."""
        if reason is None:
            reason = UserInteractionError(
                f"The ACP client cancelled the prompt turn of session {self._session_id!r}.",
                ASK_ABORTED,
            )
        self._controller.abort(reason)

    def __enter__(self) -> AcpTurn:
        self._tokens.append(_TURN.set(self))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _TURN.reset(self._tokens.pop())
        if not self._tokens:
            self._bridge._forget(self)

    async def __aenter__(self) -> AcpTurn:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, traceback)


def _consume(future: asyncio.Future[Any]) -> None:
    """Mark a late failure as seen: nobody may be waiting for it any more."""
    if not future.cancelled():
        future.exception()


def _hand_over(
    loop: asyncio.AbstractEventLoop, done: asyncio.Future[T], result: asyncio.Future[T]
) -> None:
    """Copy the outcome of ``done`` (on the connection's loop) into ``result`` (on ``loop``)."""

    def copy() -> None:
        if result.done():
            return
        if done.cancelled():
            result.cancel()
            return
        exc = done.exception()
        if exc is None:
            result.set_result(done.result())
        else:
            result.set_exception(exc)

    try:
        loop.call_soon_threadsafe(copy)
    except RuntimeError:  # the asking loop has closed: nobody waits any more
        pass
