"""The ``inbox`` provider: an agent's asks go to a running inbox server and wait there, in
held requests (no polling), for the human to settle them."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    INVALID_REQUEST,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
)

from ._address import TOKEN_HEADER, Address, InboxUnreachable, find_address
from ._decisions import InboxDecisions

if TYPE_CHECKING:
    import aiohttp

__all__ = ["InboxProvider"]

#: Seconds each wait request is held by the server before it answers "still pending".
_WAIT: Final = 25.0
#: Pauses between attempts to reach a server that is down (it may be restarting).
_RETRY_DELAYS: Final = (0.1, 0.3, 0.5, 1.0, 2.0)
#: How long a withdrawal may take before the provider gives up on it (the ask then ends
#: at its deadline, or 30 s after this agent left when it has no key).
_WITHDRAW_TIMEOUT: Final = 2.0


class _Session:
    """The HTTP session the asks on one event loop share: its connections stay open
    between asks (aiohttp closes them after 15 idle seconds). A task keeps it, so it is
    closed on its own loop when the provider is disposed or when the loop ends (which
    cancels the keeper), after the asks still using it have withdrawn."""

    def __init__(self) -> None:
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=None, sock_connect=5.0, sock_read=_WAIT + 10.0)
        self.client = aiohttp.ClientSession(timeout=timeout)
        self.loop = asyncio.get_running_loop()
        self.asks: set[asyncio.Task[Any]] = set()
        self.closing = asyncio.Event()
        self.keeper = self.loop.create_task(self._keep())

    async def _keep(self) -> None:
        try:
            await self.closing.wait()
        finally:
            if self.asks:  # each withdraws within its own bound (_WITHDRAW_TIMEOUT)
                await asyncio.wait(self.asks)
            await self.client.close()

    def close(self) -> None:
        """Close the session on its loop, once its asks are done (from any thread)."""
        try:
            self.loop.call_soon_threadsafe(self.closing.set)
        except RuntimeError:  # the loop is closed: the keeper ran when it ended
            pass


class _Gone(Exception):
    """The server does not know the ask (404): its store lost it."""


class _Progress:
    """How far one ask got: the caller's name in the server (``waiter``), the post under
    way, the ask's id once posted, and whether it was settled (then nothing is withdrawn)."""

    __slots__ = ("ask_id", "posting", "settled", "waiter")

    def __init__(self, waiter: str) -> None:
        self.waiter = waiter
        self.posting: asyncio.Task[dict[str, Any]] | None = None
        self.ask_id: str | None = None
        self.settled = False


class InboxProvider:
    """Asks through a running inbox (``user-interaction inbox serve``).

    ``url`` (with the token as its fragment, or ``token`` apart) names the inbox; by
    default ``USER_INTERACTION_INBOX``, else the ``inbox.json`` a server on this machine
    wrote. ``agent`` is the label the human sees; by default the request's ``agent``
    object's ``name`` (or its ``str()``), else the program's name and pid.

    A request with a ``key`` joins the pending ask holding that key, or gets at once the
    answer the human gave it (kept 7 days). Abort and timeout withdraw the ask, except a
    keyed one another caller still waits on; disposal withdraws an unkeyed ask and leaves a
    keyed one pending for the key's next caller. When the server restarts, the wait picks
    up again by itself (the address is read again: the port may have changed).

    The asks on one event loop share one HTTP session, closed on disposal or when the loop
    ends.
    """

    priority: Final = 15
    serial: Final = False

    def __init__(
        self, url: str | None = None, token: str | None = None, agent: str | None = None
    ) -> None:
        self._url = url
        self._token = token
        self._agent = agent
        #: Where the inbox was last found: read again only when it stops answering.
        self._known: Address | None = find_address(url, token)  # a bad url= fails here
        self._sessions: dict[asyncio.AbstractEventLoop, _Session] = {}
        self._lock = threading.Lock()
        import aiohttp  # noqa: F401  # here, not on the caller's event loop at the first ask

    @classmethod
    def available(cls) -> bool:
        """Whether an inbox answers at the configured address (within a second)."""
        try:
            reply = find_address().request("GET", "/api/inbox", timeout=1.0)
        except InboxUnreachable:
            return False
        return reply.status == 200 and reply.body.get("inbox") is True

    def _address(self) -> Address:
        known = self._known
        if known is None:
            known = self._known = find_address(self._url, self._token)
        return known

    def _session(self) -> _Session:
        """This loop's session, opened at its first ask."""
        loop = asyncio.get_running_loop()
        with self._lock:
            session = self._sessions.get(loop)
            if session is None or session.closing.is_set() or session.keeper.done():
                session = self._sessions[loop] = _Session()
                session.keeper.add_done_callback(lambda _: self._forget(session))
        return session

    def _forget(self, session: _Session) -> None:
        with self._lock:
            if self._sessions.get(session.loop) is session:
                del self._sessions[session.loop]

    def _label(self, request: AskUserQuestionRequest) -> str:
        if self._agent:
            return self._agent
        agent = request.agent
        if agent is not None:
            name = getattr(agent, "name", None)
            label = name if isinstance(name, str) and name.strip() else str(agent)
            if label.strip():
                return label.strip()[:200]
        return f"{Path(sys.argv[0]).name or 'python'} ({os.getpid()})"

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        signal = request.signal
        assert signal is not None  # the manager always gives the provider its own signal
        progress = _Progress(secrets.token_hex(8))
        shared = self._session()
        task = asyncio.current_task()
        assert task is not None
        shared.asks.add(task)
        session = shared.client
        try:
            status = await signal.race(self._settled(session, request, progress))
            progress.settled = True
            return _outcome(status)
        finally:
            try:
                if progress.posting is not None and not progress.settled:
                    await self._leave(session, request, progress)
            finally:
                shared.asks.discard(task)

    async def _settled(
        self, session: aiohttp.ClientSession, request: AskUserQuestionRequest, progress: _Progress
    ) -> dict[str, Any]:
        """Post the ask, then wait in held requests until it is settled; its status."""
        waiter = progress.waiter
        status = await self._posted(session, request, progress)
        while status["state"] == "pending" or (
            status["state"] == "withdrawn" and request.key is not None
        ):
            if status["state"] == "withdrawn":  # the key was released: ask again
                status = await self._posted(session, request, progress)
                continue
            try:
                status = await self._call(
                    session, "GET", f"/api/asks/{progress.ask_id}?wait={_WAIT:g}&waiter={waiter}"
                )
            except _Gone:
                if request.key is None:
                    raise UserInteractionError(
                        f"The inbox lost ask {progress.ask_id} (its store was replaced).",
                        PROVIDER_FAILED,
                    ) from None
                status = await self._posted(session, request, progress)
        return status

    async def _posted(
        self, session: aiohttp.ClientSession, request: AskUserQuestionRequest, progress: _Progress
    ) -> dict[str, Any]:
        """Post the ask as a task of its own: when the caller's signal ends the wait while
        the post is under way, the server may have stored the ask already, and the
        withdrawal needs its id (see :meth:`_leave`)."""
        progress.posting = asyncio.ensure_future(self._post(session, request, progress.waiter))
        status = await asyncio.shield(progress.posting)
        progress.ask_id = status["id"]
        return status

    async def _leave(
        self, session: aiohttp.ClientSession, request: AskUserQuestionRequest, progress: _Progress
    ) -> None:
        """Withdraw the ask (or, for a keyed ask on disposal, only stop waiting on it)."""
        signal = request.signal
        gave_up = signal is not None and (
            signal.aborted and signal.error().code in (ASK_ABORTED, ASK_TIMEOUT)
        )
        leave = request.key is not None and not gave_up
        withdrawal = asyncio.ensure_future(
            asyncio.wait_for(self._withdraw(session, progress, leave), _WITHDRAW_TIMEOUT)
        )
        withdrawal.add_done_callback(_consume)  # best effort: the server's timers remain
        try:
            await asyncio.shield(withdrawal)
        except asyncio.CancelledError:
            # The manager cancels this task when the signal fires: finish the (bounded)
            # withdrawal first, so the ask is gone from the inbox when the caller hears.
            await asyncio.wait([withdrawal])
            raise
        except Exception:
            pass

    async def _withdraw(
        self, session: aiohttp.ClientSession, progress: _Progress, leave: bool
    ) -> None:
        posting = progress.posting
        assert posting is not None
        status = await posting  # the id of an ask whose post was still under way
        await self._call(
            session,
            "POST",
            f"/api/asks/{status['id']}/withdraw",
            {"waiter": progress.waiter, "leave": leave},
            retry=False,
        )

    async def _post(
        self, session: aiohttp.ClientSession, request: AskUserQuestionRequest, waiter: str
    ) -> dict[str, Any]:
        assert request.signal is not None
        payload = {
            "request": request.to_dict(),
            "agent": self._label(request),
            "timeLeft": request.signal.time_left(),
            "waiter": waiter,
        }
        return await self._call(session, "POST", "/api/asks", payload)

    async def _call(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        payload: object = None,
        *,
        retry: bool = True,
    ) -> dict[str, Any]:
        """One API call; while the server cannot be reached (restarting), or cannot reach
        its store (503), try again with the address read afresh. The caller's signal ends
        the attempts (the manager cancels this task)."""
        import aiohttp

        attempt = 0
        while True:
            try:
                address = self._address()
                async with session.request(
                    method,
                    address.base + path,
                    json=payload,
                    headers={TOKEN_HEADER: address.token},
                ) as response:
                    text = await response.read()
                    status = response.status
            except (aiohttp.ClientError, InboxUnreachable, asyncio.TimeoutError):
                if self._url is None:
                    self._known = None  # the server may be back on another port
                if not retry:
                    raise
                await asyncio.sleep(_RETRY_DELAYS[min(attempt, len(_RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            if status == 503 and retry:  # the inbox's database is away for a moment
                await asyncio.sleep(_RETRY_DELAYS[min(attempt, len(_RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            try:
                body = json.loads(text)
            except ValueError:
                body = None
            if status == 200 and isinstance(body, dict):
                return body
            message = body.get("error") if isinstance(body, dict) else None
            if status == 404:
                raise _Gone(message)
            if isinstance(body, dict) and body.get("code") == INVALID_REQUEST:
                raise UserInteractionError(f"The inbox refused the ask: {message}", INVALID_REQUEST)
            where = path.partition("?")[0]
            raise UserInteractionError(
                f"The inbox answered {method} {where} with {status}: {message}",
                PROVIDER_FAILED,
            )

    def decision_store(self) -> InboxDecisions:
        """The approvals remembered in this inbox ("Always allow" / "Always deny"): with
        no ``USER_INTERACTION_DECISIONS`` set, the core keeps them here instead of in a
        file of this machine, so every agent of the inbox follows them."""
        return InboxDecisions(self._url, self._token)

    def dispose(self) -> None:
        """Close the sessions (the manager's signal has ended the asks still waiting; they
        withdraw first)."""
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            session.close()


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a finished withdrawal's exception: it failed quietly, by design."""
    if not task.cancelled():
        task.exception()


def _outcome(status: dict[str, Any]) -> AskUserQuestionAnswer:
    """What a settled ask gives its caller."""
    state = status["state"]
    if state == "answered":
        return AskUserQuestionAnswer.from_dict(status["answer"])
    error = status.get("error") or {}
    message = str(error.get("message") or f"The ask was {state} in the inbox.")
    code = {
        "cancelled": ASK_CANCELLED,
        "declined": ASK_DECLINED,
        "expired": ASK_TIMEOUT,
    }.get(state, ASK_ABORTED)
    raise UserInteractionError(message, code)
