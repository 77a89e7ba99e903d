"""``@interactive``: binds a tool call's MCP ``Context`` to the asks made inside it.

The SDK has no public request context variable, so this package owns one. The decorator
sets it from the tool's ``Context`` argument for the duration of the call (the provider,
its task and a sync tool's thread inherit it) together with the server's event loop, so
an ask from any thread or loop reaches the session that lives there.

On a 2026-07-28 session the server cannot send a request mid-tool; asks are *replayed*
instead: the first ask nobody has answered yet parks, the decorator cancels the body and
returns an ``InputRequiredResult`` with that ask's form, and the client answers and calls
the tool again. The body then runs from the top: asks answered in earlier rounds return
their recorded outcome from the (sealed) ``request_state``, the new one its answer from
``input_responses``. Each ask is keyed by call order (``ask0``, ``ask1``, ...) plus a
digest of its form, so a changed question never takes an old answer. Each state carries a
random use id that this server process accepts once: replaying a state (within its sealed
lifetime) cannot re-run the tool's side effects on old answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least

from user_interaction import INVALID_ANSWER, PROVIDER_FAILED, AbortSignal, UserInteractionError

if TYPE_CHECKING:
    from ._form import FormPlan

__all__ = ["Binding", "Replay", "current_binding", "interactive"]

F = TypeVar("F", bound=Callable[..., Any])

#: The first protocol version whose tool calls cannot send requests to the client.
REPLAY_VERSION: Final = "2026-07-28"
#: Marks a ``request_state`` as this package's (a tool may use the channel otherwise too).
_STATE_TAG: Final = "user_interaction_mcp"
_STATE_VERSION: Final = 1
#: How long an issued state's use id is remembered (longer than any sensible seal lifetime),
#: and how many at most (the oldest forgotten first).
_USE_LIFETIME: Final = 24 * 3600.0
_USE_LIMIT: Final = 100_000


class _Uses:
    """The use ids of the states this process issued and that were not used yet."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._issued: dict[str, float] = {}  # in issue order

    def issue(self) -> str:
        use = secrets.token_hex(16)
        now = time.monotonic()
        with self._lock:
            issued = self._issued
            for old, when in list(issued.items()):
                if now - when < _USE_LIFETIME and len(issued) < _USE_LIMIT:
                    break
                del issued[old]
            issued[use] = now
        return use

    def take(self, use: object) -> bool:
        """Whether ``use`` was issued here and not taken before (it is taken now)."""
        with self._lock:
            return isinstance(use, str) and self._issued.pop(use, None) is not None


_USES: Final = _Uses()

_BINDING: ContextVar[Binding | None] = ContextVar("user_interaction_mcp.binding", default=None)


class Binding:
    """The MCP tool call the running code belongs to."""

    __slots__ = ("context", "loop", "replay")

    def __init__(
        self, context: Context[Any, Any], loop: asyncio.AbstractEventLoop, replay: Replay | None
    ) -> None:
        #: The tool's ``Context`` (session, request id, protocol version).
        self.context = context
        #: The server's event loop: the session's requests are sent from there.
        self.loop = loop
        #: The replay state of a 2026-07-28 call; ``None`` on a legacy session.
        self.replay = replay


def current_binding() -> Binding | None:
    """The binding set by ``@interactive`` around the running code, if any."""
    return _BINDING.get()


class Replay:
    """One round of a 2026-07-28 tool call: recorded outcomes, answers, and the park."""

    def __init__(self, context: Context[Any, Any], loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        recorded, asked, use = _decode(context.request_state)
        if use is not None and not _USES.take(use):
            raise ToolError(
                "This request_state was used already, or was issued by another server "
                "process: each is accepted once, by the process that issued it. Call the "
                "tool again without it."
            )
        self._recorded = recorded  # key -> (digest, result dict) from earlier rounds
        self._asked = asked  # key -> digest of the form the last round sent
        self._responses: Mapping[str, object] = context.input_responses or {}
        self._used: dict[str, tuple[str, dict[str, Any]]] = {}  # outcomes of this round
        self._calls = 0
        self._closed = False
        #: The parked ask's key and form; set once per round at most.
        self.parked: tuple[str, FormPlan] | None = None
        #: An ask that ran into another one already parked (asks ran at once).
        self.conflict: UserInteractionError | None = None
        self._holds: list[concurrent.futures.Future[None]] = []
        self.notice: asyncio.Future[None] = loop.create_future()

    async def outcome(self, plan: FormPlan, signal: AbortSignal) -> tuple[object, object]:
        """The ``(action, content)`` for ``plan``: recorded, answered, or (parking until
        the round ends) asked for."""
        with self._lock:
            key = f"ask{self._calls}"
            self._calls += 1
            result = self._lookup(key, plan.digest)
            if result is None:
                hold = self._park(key, plan)
        if result is not None:
            return result.get("action"), result.get("content")
        try:
            self._loop.call_soon_threadsafe(_settle, self.notice)
        except RuntimeError:  # the server loop closed: the round is long over
            pass
        await signal.race(asyncio.wrap_future(hold))
        raise AssertionError("unreachable: a parked ask only ends by failing")  # pragma: no cover

    def _lookup(self, key: str, digest: str) -> dict[str, Any] | None:
        recorded = self._recorded.get(key)
        if recorded is not None and recorded[0] == digest:
            self._used[key] = recorded
            return recorded[1]
        response = self._responses.get(key)
        if response is not None and self._asked.get(key) == digest:
            if not isinstance(response, ElicitResult):
                raise UserInteractionError(
                    f"The MCP client answered the form {key!r} with a "
                    f"{type(response).__name__}, not an elicitation result.",
                    INVALID_ANSWER,
                )
            result = {"action": response.action, "content": response.content}
            self._used[key] = (digest, result)
            return result
        return None

    def _park(self, key: str, plan: FormPlan) -> concurrent.futures.Future[None]:
        if self._closed:
            self.conflict = UserInteractionError(
                "An @interactive tool of a 2026-07-28 MCP session asked again after its "
                "round had ended: let the cancellation (or, in a sync tool, the error) that "
                "ends a round propagate instead of catching it.",
                PROVIDER_FAILED,
            )
            raise self.conflict
        if self.parked is not None:
            self.conflict = UserInteractionError(
                "Two asks ran at once inside an @interactive tool of a 2026-07-28 MCP session; "
                "it can wait for one form at a time. Ask one after the other (no gather()).",
                PROVIDER_FAILED,
            )
            raise self.conflict
        self.parked = (key, plan)
        hold: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._holds.append(hold)
        return hold

    def close(self) -> None:
        """End the round: a parked ask fails (a sync tool's thread gets it back), and
        any later ask is a conflict."""
        with self._lock:
            self._closed = True
            holds, self._holds = self._holds, []
        for hold in holds:
            try:
                hold.set_exception(
                    UserInteractionError(
                        "This round of the @interactive tool is over: it returned to ask the "
                        "MCP client for input, and runs again with the answer.",
                        PROVIDER_FAILED,
                    )
                )
            except concurrent.futures.InvalidStateError:  # cancelled by its ask's signal
                pass

    def result(self) -> InputRequiredResult:
        """The round's result: the parked form, and the state to continue from."""
        assert self.parked is not None
        key, plan = self.parked
        state = {
            _STATE_TAG: _STATE_VERSION,
            "use": _USES.issue(),
            "done": {k: [digest, result] for k, (digest, result) in self._used.items()},
            "asked": {key: plan.digest},
        }
        request = ElicitRequest(
            params=ElicitRequestFormParams(message=plan.message, requested_schema=plan.schema)
        )
        return InputRequiredResult(
            input_requests={key: request},
            request_state=json.dumps(state, separators=(",", ":")),
        )


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _decode(
    state: str | None,
) -> tuple[dict[str, tuple[str, dict[str, Any]]], dict[str, str], object]:
    """Recorded outcomes, asked digests and the use id from a ``request_state`` this
    package wrote (``MCPServer`` seals it, so it is what we sent); anything else carries
    none."""
    if not state:
        return {}, {}, None
    try:
        data = json.loads(state)
    except ValueError:
        return {}, {}, None
    if not isinstance(data, dict) or data.get(_STATE_TAG) != _STATE_VERSION:
        return {}, {}, None
    recorded: dict[str, tuple[str, dict[str, Any]]] = {}
    for key, entry in dict(data.get("done") or {}).items():
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict):
            recorded[str(key)] = (str(entry[0]), entry[1])
    asked = {str(key): str(digest) for key, digest in dict(data.get("asked") or {}).items()}
    return recorded, asked, data.get("use", "")


def interactive(fn: F) -> F:
    """Let ``await ui.ask(...)`` (or ``ui.ask_sync``) inside this MCP tool show forms in
    the client that called it, on every protocol version.

    Put it under ``@server.tool()``; the tool takes a ``Context`` parameter (the SDK fills
    it in, and it stays out of the tool's input schema)::

        @server.tool()
        @interactive
        async def setup(ctx: Context) -> str:
            answer = await ui.ask(...)

    On a 2026-07-28 session the body re-runs from the top once per answered form, so code
    before each ask must be safe to repeat; asks one after another, never at once.
    """
    name = find_context_parameter(fn)
    if name is None:
        raise TypeError(
            f"@interactive needs {getattr(fn, '__qualname__', fn)!r} to take a parameter "
            "annotated with mcp.server.mcpserver.Context (e.g. 'ctx: Context'): that is how "
            "the asks inside it find the MCP request to send their forms through"
        )
    is_async = inspect.iscoroutinefunction(fn)

    @functools.wraps(fn)
    async def tool(*args: Any, **kwargs: Any) -> Any:
        context = _request_context(name, args, kwargs)
        outer = _BINDING.get()
        if context is None or (outer is not None and outer.context is context):
            return await _run(fn, is_async, args, kwargs)  # nothing (new) to bind
        loop = asyncio.get_running_loop()
        version = context.protocol_version
        replay = (
            Replay(context, loop)
            if version is not None and is_version_at_least(version, REPLAY_VERSION)
            else None
        )
        token = _BINDING.set(Binding(context, loop, replay))
        try:
            if replay is None:
                return await _run(fn, is_async, args, kwargs)
            return await _round(replay, _run(fn, is_async, args, kwargs), cancel=is_async)
        finally:
            _BINDING.reset(token)

    return cast(F, tool)


def _request_context(name: str, args: Any, kwargs: Any) -> Context[Any, Any] | None:
    """The tool's ``Context``, if it belongs to a request (a direct call has none)."""
    found = kwargs.get(name)
    context: Context[Any, Any] | None = (
        found
        if isinstance(found, Context)
        else next((arg for arg in args if isinstance(arg, Context)), None)
    )
    if context is None:
        return None
    try:
        context.request_context  # noqa: B018 -- raises outside a request
    except ValueError:
        return None
    return context


async def _run(fn: Callable[..., Any], is_async: bool, args: Any, kwargs: Any) -> Any:
    if is_async:
        return await fn(*args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)  # carries the binding along


async def _round(replay: Replay, body: Any, *, cancel: bool) -> Any:
    """Run the body until it returns or an ask parks; a parked round returns the form."""
    task: asyncio.Future[Any] = asyncio.ensure_future(body)
    try:
        await asyncio.wait({task, replay.notice}, return_when=asyncio.FIRST_COMPLETED)
        if task.done() and replay.parked is None:
            return task.result()
        # An ask waits for the client: stop the body and answer this round with the form.
        # An async body is cancelled at its ask; a sync one (on a thread, which cannot be
        # cancelled) gets its ask failed, and is waited for.
        if cancel:
            task.cancel()
        replay.close()
        await asyncio.wait({task})
    except BaseException:
        task.cancel()
        raise
    finally:
        replay.close()  # no ask outlives its round
    if not task.cancelled():
        task.exception()  # retrieved: the round's outcome is the form, not this
    if replay.conflict is not None:
        raise ToolError(str(replay.conflict)) from replay.conflict
    return replay.result()
