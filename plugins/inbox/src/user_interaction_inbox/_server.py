"""The inbox server: an aiohttp application over a :class:`~._store.Store`, with an HTTP API
for agents (post an ask, wait for it to settle, withdraw it) and for the human's side (list
the pending asks, settle one, follow them on a server-sent event stream), and the page
showing every agent's asks, behind the web provider's guards. The page is the web
provider's code base (its cards script and stylesheet, served from the installed
``user-interaction-web``) with a script of its own for the inbox's transport.

The page's browser authenticates with a session cookie (see :mod:`._page`); agents and
the command line send the token in a header.

The store is the truth: a state change is committed before it is acknowledged. In memory
the server keeps, per pending ask, what the store need not: the requests waiting on it,
its expiry timer, and the timer withdrawing an unkeyed ask whose agent went away.

Several servers may share one store (PostgreSQL): each hears of the others' changes
through :meth:`InboxServer.store_changed`, the one place where a change seen in the store
reaches this server's waiters and lists. Every server arms the expiry of every pending ask
(the first to settle it wins); only a server the ask's agent talks to withdraws an unkeyed
ask whose agent went away.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import ssl
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine
from typing import Any, Final, TypeVar

import attrs
from aiohttp import web
from user_interaction_web.guards import (
    LOOPBACK_NAMES,
    MAX_BODY,
    Refused,
    add_security_headers,
    guard,
    read_json,
)

from user_interaction import (
    ASK_ABORTED,
    ASK_TIMEOUT,
)

from . import _live
from ._decisions_api import decision_routes
from ._live import Live, Waiter
from ._notify import Notifications, Notifier
from ._page import SESSION_COOKIE, Sessions, page_routes, token_of
from ._store import KeyConflict, State, Store, StoredAsk, StoreUnavailable
from ._wire import (
    already_settled,
    card_of,
    event,
    fresh_ask,
    json_object,
    only_fields,
    outcome_of,
    settlement,
    status_of,
    text_field,
)

__all__ = [
    "DEFAULT_RETAIN",
    "MAX_WAIT",
    "SESSION_COOKIE",
    "InboxServer",
    "card_of",
    "status_of",
]

#: Seconds settled asks (and so their keys' answers) are kept: 7 days.
DEFAULT_RETAIN: Final = 7 * 24 * 3600.0
#: The longest a wait request is held (``?wait=``), in seconds.
MAX_WAIT: Final = 60.0
_PURGE_EVERY: Final = 3600.0
#: Seconds before a timer's change is tried again when the store was unreachable.
_RETRY_AFTER: Final = 1.0
T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: Seconds between two comments on an idle event stream (proxies close silent ones).
_PING_SECONDS: Final = 15.0
#: What a request with neither the token nor the session hears.
_HOW_TO_GET_IN: Final = (
    "Open the inbox's address with its token once in this browser: "
    "`user-interaction inbox open` prints it."
)


class InboxServer:
    """The pending asks of every agent, over ``store``; lives on the running loop."""

    def __init__(
        self,
        store: Store,
        token: str,
        *,
        retain: float = DEFAULT_RETAIN,
        hosts: Collection[str] = LOOPBACK_NAMES,
        notifier: Notifier | None = None,
        public_url: str | None = None,
    ) -> None:
        """``notifier`` announces each new ask, linking to it under ``public_url`` (where
        humans reach this server: a tunnel's or a load balancer's address), else under
        the address it listens on."""
        self.store = store
        self.token = token
        self.retain = retain
        self.hosts = frozenset(hosts)
        self.base = ""
        self.tls = False
        self._sessions = Sessions(token, secure=lambda: self.tls)
        self._streams: set[asyncio.Queue[bytes | None]] = set()
        self._closing = False
        self._live: dict[str, Live] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self._purge: asyncio.TimerHandle | None = None
        self._adding: list[tuple[StoredAsk, asyncio.Future[tuple[StoredAsk, bool]]]] = []
        self._adder: asyncio.Task[None] | None = None
        # The pending list's version, for ``GET /api/asks?after=``: a cursor names this
        # server's run too, so one from before a restart never matches.
        self._run = secrets.token_hex(4)
        self._version = 0
        self._list_event = asyncio.Event()
        self._public_url = public_url
        self._notifications = None if notifier is None else Notifications(notifier, store)
        self._synced = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    # -- life cycle ----------------------------------------------------------------------

    def app(self) -> web.Application:
        """The aiohttp application (its routes and guards)."""
        app = web.Application(
            client_max_size=MAX_BODY,
            middlewares=[
                guard(
                    token_of,
                    self.token,
                    hosts=self.hosts,
                    origin_required=False,
                    session=self._sessions.carried,
                    refusal=_HOW_TO_GET_IN,
                ),
                _unavailable,
            ],
        )
        # The page itself needs no credential (it holds no model text): a link without
        # the token serves it, and its requests then carry the session cookie.
        app.router.add_routes(page_routes())
        app.router.add_routes([self._sessions.route()])
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/api/inbox", self._hello)
        app.router.add_get("/api/asks", self._list)
        app.router.add_post("/api/asks", self._post)
        app.router.add_get("/api/asks/{id}", self._get)
        app.router.add_post("/api/asks/{id}/withdraw", self._withdraw)
        app.router.add_post("/api/asks/{id}/settle", self._settle)
        app.router.add_routes(decision_routes(self.store))
        app.on_response_prepare.append(add_security_headers)
        return app

    async def start(self, host: str, port: int, ssl_context: ssl.SSLContext | None = None) -> None:
        """Load the pending asks and follow the store's changes (arming the asks' timers:
        with a store of its own, the agents of unkeyed asks have :data:`~._live.ABANDONED_AFTER`
        seconds to come back), then listen on ``host:port``."""
        await asyncio.to_thread(self.store.purge, time.time() - self.retain)
        self._watch = asyncio.ensure_future(self.store.watch(self.store_changed))
        synced = asyncio.ensure_future(self._synced.wait())
        await asyncio.wait([self._watch, synced], return_when=asyncio.FIRST_COMPLETED)
        synced.cancel()
        if self._watch.done():
            self._watch.result()  # a store that failed at once says why
        if not self.store.shared:
            for live in self._live.values():
                if live.ask.key is None:
                    self._abandon_later(live)
        # Read before listening: an ask posted from now on is sent by its own post.
        unnotified: list[StoredAsk] = []
        if self._notifications is not None:
            unnotified = await asyncio.to_thread(self.store.unnotified)
        self._schedule_purge()
        # handler_cancellation: an agent that hangs up stops waiting at once, so an unkeyed
        # ask's 30 s without its agent start then.
        runner = web.AppRunner(
            self.app(), access_log=None, handle_signals=False, handler_cancellation=True
        )
        await runner.setup()
        self._runner = runner
        await web.TCPSite(runner, host, port, ssl_context=ssl_context).start()
        self.tls = ssl_context is not None
        bound = runner.addresses[0][1]
        scheme = "https" if ssl_context is not None else "http"
        name = f"[{host}]" if ":" in host else host
        self.base = f"{scheme}://{name}:{bound}"
        if self._notifications is not None:
            self._notifications.start(
                self._public_url or self.base, self._live.__contains__, unnotified
            )

    async def close(self) -> None:
        """Stop listening; pending asks stay pending in the store."""
        if self._purge is not None:
            self._purge.cancel()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        for live in self._live.values():
            live.stop_timers()
            if not live.done.done():
                live.done.cancel()
        self._closing = True
        self._list_event.set()  # the lists held answer now: the server is closing
        for stream in self._streams:  # the pages reconnect to the next server by themselves
            stream.put_nowait(None)
        if self._runner is not None:
            await self._runner.cleanup()
        if self._notifications is not None:
            await self._notifications.close()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5.0)

    def _schedule_purge(self) -> None:
        def purge() -> None:
            self._spawn(asyncio.to_thread(self.store.purge, time.time() - self.retain))
            self._schedule_purge()

        self._purge = asyncio.get_running_loop().call_later(_PURGE_EVERY, purge)

    def _spawn(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``coroutine`` as a task the server keeps until it is done."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- pending asks --------------------------------------------------------------------

    def _cursor(self) -> str:
        return f"{self._run}.{self._version}"

    def _changed(self, ask: StoredAsk) -> None:
        """Everything that follows a change of one ask, in one place: it arrived, its
        deadline moved, or it left the pending list (settled, expired, withdrawn). The
        held ``GET /api/asks?after=`` requests wake and every page's event stream hears
        of it. Every state change passes here, whoever made it."""
        self._version += 1
        self._list_event.set()
        self._list_event = asyncio.Event()
        if ask.state == "pending":
            message = event("ask", card_of(ask, time.time()))
        else:
            code = (ask.error or {}).get("code")
            message = event(
                "settled",
                {"askId": ask.id, "state": ask.state, "settledBy": ask.settled_by, "code": code},
            )
        for stream in self._streams:
            stream.put_nowait(message)

    async def store_changed(self, ask_id: str | None) -> None:
        """The store saw ask ``ask_id`` change (any server's doing, this one's included):
        read it again and bring this server's view up to date, waking its waiters and
        lists. ``None``: changes may have been missed (the store was just followed, or
        followed again after an outage); read every pending ask again."""
        if ask_id is not None:
            self._refresh(ask_id, await asyncio.to_thread(self.store.get, ask_id))
            return
        stored = await asyncio.to_thread(self.store.pending)
        for ask in stored:
            self._refresh(ask.id, ask)
        still = {ask.id for ask in stored}
        for other in [known for known in self._live if known not in still]:
            self._refresh(other, await asyncio.to_thread(self.store.get, other))
        self._synced.set()

    def _refresh(self, ask_id: str, ask: StoredAsk | None) -> None:
        """Make this server's view of ``ask_id`` what the store holds: ``ask``."""
        live = self._live.get(ask_id)
        if ask is not None and ask.state == "pending":
            if live is None or live.ask != ask:
                self._track(ask)
        elif live is not None and ask is not None:
            self._finish(live, ask)
        elif live is not None:  # the store forgot it: its waiters find a 404 when they ask
            live.stop_timers()
            del self._live[ask_id]
            self._changed(attrs.evolve(live.ask, state="withdrawn"))
            live.done.cancel()

    def _track(self, ask: StoredAsk) -> Live:
        live = self._live.get(ask.id)
        if live is None:
            live = self._live[ask.id] = Live(ask)
        live.ask = ask
        self._arm_expiry(live)
        self._changed(ask)
        return live

    def _arm_expiry(self, live: Live) -> None:
        if live.expiry is not None:
            live.expiry.cancel()
            live.expiry = None
        deadline = live.ask.deadline
        if deadline is not None:
            delay = max(0.0, deadline - time.time())
            live.expiry = asyncio.get_running_loop().call_later(
                delay, lambda: self._spawn(self._end(live, "expired", "inbox (deadline)"))
            )

    def _abandon_later(self, live: Live) -> None:
        if live.abandoned is not None:
            live.abandoned.cancel()
        live.abandoned = asyncio.get_running_loop().call_later(
            _live.ABANDONED_AFTER,  # one value, with Live.others_present
            lambda: self._spawn(self._end(live, "withdrawn", "inbox (agent gone)")),
        )

    async def _end(self, live: Live, state: State, by: str) -> None:
        """Expire or withdraw ``live``'s ask (a timer's or an agent's doing)."""
        message = {
            "expired": ("The ask's deadline passed in the inbox.", ASK_TIMEOUT),
            "withdrawn": ("The ask was withdrawn from the inbox.", ASK_ABORTED),
        }[state]
        try:
            await self._commit(live, state, None, {"message": message[0], "code": message[1]}, by)
        except StoreUnavailable:  # reported by the store; try again while the ask is here
            if self._live.get(live.ask.id) is live:
                handle = asyncio.get_running_loop().call_later(
                    _RETRY_AFTER, lambda: self._spawn(self._end(live, state, by))
                )
                if state == "expired":
                    live.expiry = handle
                else:
                    live.abandoned = handle

    async def _commit(
        self,
        live: Live,
        state: State,
        answer: dict[str, Any] | None,
        error_data: dict[str, str] | None,
        by: str,
    ) -> StoredAsk | None:
        """Settle ``live``'s ask in the store, then wake its waiters; ``None`` when another
        settled it first. Shielded: a client that hangs up meanwhile (aiohttp then cancels
        its handler) never leaves a committed change unannounced to the waiters."""
        return await asyncio.shield(
            self._spawn(self._commit_now(live, state, answer, error_data, by))
        )

    async def _commit_now(
        self,
        live: Live,
        state: State,
        answer: dict[str, Any] | None,
        error_data: dict[str, str] | None,
        by: str,
    ) -> StoredAsk | None:
        at = time.time()
        won = await asyncio.to_thread(
            self.store.settle, live.ask.id, state, answer=answer, error=error_data, by=by, at=at
        )
        if not won:  # settled first elsewhere: take the store's word for what it is now
            self._refresh(live.ask.id, await asyncio.to_thread(self.store.get, live.ask.id))
            return None
        settled = attrs.evolve(
            live.ask, state=state, answer=answer, error=error_data, settled_by=by, settled=at
        )
        self._finish(live, settled)
        return settled

    def _finish(self, live: Live, settled: StoredAsk) -> None:
        live.stop_timers()
        if self._live.get(settled.id) is live:
            del self._live[settled.id]
            self._changed(settled)
        if not live.done.done():
            live.done.set_result(settled)

    async def _find(self, ask_id: str) -> tuple[Live | None, StoredAsk]:
        """The ask called ``ask_id``: live when pending; 404 when unknown."""
        live = self._live.get(ask_id)
        if live is not None:
            return live, live.ask
        ask = await asyncio.to_thread(self.store.get, ask_id)
        if ask is None:
            raise Refused(404, f"No ask {ask_id!r} in this inbox.")
        if ask.state == "pending":  # another server's, not heard of yet: follow it now
            live = self._live.get(ask_id) or self._track(ask)
            return live, live.ask
        return None, ask

    async def _add_queued(self) -> None:
        """Store the asks posted meanwhile, in one transaction per turn (group commit):
        under a burst of posts each pays a share of one ``fsync``, not a queue of them."""
        while self._adding:
            batch, self._adding = self._adding, []
            try:
                results = await asyncio.to_thread(
                    self.store.add_many, [fresh for fresh, _ in batch], self.retain
                )
            except Exception as exc:  # the store failed: every ask of the batch says so
                for _, added in batch:
                    added.set_exception(exc)
                continue
            for (_, added), result in zip(batch, results):
                if isinstance(result, KeyConflict):
                    added.set_exception(result)
                else:
                    added.set_result(result)

    # -- HTTP: agents --------------------------------------------------------------------

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The pending asks as server-sent events: a ``snapshot`` of them all on every
        (re)connection, then ``ask`` (new, or its deadline moved) and ``settled`` (it
        left: ``state``, ``settledBy``, the error ``code``), and a comment every
        :data:`_PING_SECONDS` seconds. The stream ends when the server closes; the page
        then reconnects by itself."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if self._closing:
            return response
        stream: asyncio.Queue[bytes | None] = asyncio.Queue()
        # subscribed and snapshot taken in one step of the loop: no change falls between
        self._streams.add(stream)
        now = time.time()
        asks = sorted((live.ask for live in self._live.values()), key=lambda a: (a.created, a.id))
        snapshot = event("snapshot", {"asks": [card_of(ask, now) for ask in asks]})
        try:
            await response.write(b"retry: 1000\n\n" + snapshot)
            while True:
                try:
                    message = await asyncio.wait_for(stream.get(), _PING_SECONDS)
                except asyncio.TimeoutError:
                    message = b": ping\n\n"
                if message is None:
                    break
                await response.write(message)
        except (ConnectionError, RuntimeError):  # the tab went away
            pass
        finally:
            self._streams.discard(stream)
        return response

    async def _hello(self, request: web.Request) -> web.Response:
        waiting = sum(live.holding() for live in self._live.values())
        return web.json_response({"inbox": True, "pending": len(self._live), "waiting": waiting})

    async def _post(self, request: web.Request) -> web.Response:
        fresh, waiter = fresh_ask(json_object(await read_json(request)))
        try:
            ask = await asyncio.shield(self._spawn(self._add(fresh, waiter)))
        except KeyConflict as conflict:
            raise Refused(409, f"key: {conflict}", extra={"code": "INVALID_REQUEST"}) from None
        return web.json_response(status_of(ask))

    async def _add(self, fresh: StoredAsk, waiter: str) -> StoredAsk:
        """Store (or join) an ask and track it: shielded from the agent hanging up, so no
        stored pending ask is left without its timers."""
        added: asyncio.Future[tuple[StoredAsk, bool]] = asyncio.get_running_loop().create_future()
        self._adding.append((fresh, added))
        if self._adder is None or self._adder.done():
            self._adder = self._spawn(self._add_queued())
        ask, joined = await added
        if ask.state == "pending":
            live = self._track(ask)
            live.waiters.setdefault(waiter, Waiter()).seen = time.monotonic()
            if ask.key is None and live.abandoned is None and not live.holding():
                self._abandon_later(live)  # its agent has this long to start waiting
            if not joined and self._notifications is not None:
                self._notifications.new(ask)  # a task: the agent never waits for it
        return ask

    async def _get(self, request: web.Request) -> web.Response:
        live, ask = await self._find(request.match_info["id"])
        try:
            wait = min(float(request.query.get("wait", "0")), MAX_WAIT)
        except ValueError:
            raise Refused(400, "wait: expected a number of seconds") from None
        if live is None or not wait > 0:
            return web.json_response(status_of(ask))
        name = request.query.get("waiter") or "anonymous"
        waiter = live.waiters.setdefault(name, Waiter())
        waiter.holding += 1
        if live.abandoned is not None:
            live.abandoned.cancel()
            live.abandoned = None
        try:
            ask = await asyncio.wait_for(asyncio.shield(live.done), wait)
        except asyncio.TimeoutError:
            ask = live.ask
        except asyncio.CancelledError:
            if not live.done.cancelled():
                raise  # the agent went away (aiohttp cancels the handler)
            ask = live.ask  # the server is closing
        finally:
            waiter.holding -= 1
            waiter.seen = time.monotonic()
            if (
                ask.key is None
                and not live.done.done()
                and live.holding() == 0
                and self._live.get(live.ask.id) is live
            ):
                self._abandon_later(live)
        return web.json_response(status_of(ask))

    async def _withdraw(self, request: web.Request) -> web.Response:
        """A caller leaves: an unkeyed ask is withdrawn; a keyed one only when the caller
        gave up (``leave`` false: abort or timeout) and no other caller waits on it."""
        data = json_object(await read_json(request))
        only_fields(data, ("waiter", "leave"))
        live, ask = await self._find(request.match_info["id"])
        if live is None:
            return web.json_response(status_of(ask))
        name = text_field(data, "waiter") or "anonymous"
        leave = data.get("leave", False) is True
        live.waiters.pop(name, None)
        if ask.key is None or (not leave and not live.others_present(name)):
            settled = await self._commit(
                live,
                "withdrawn",
                None,
                {"message": "The agent withdrew the ask.", "code": ASK_ABORTED},
                f"agent {ask.agent}",
            )
            if settled is not None:
                ask = settled
        return web.json_response(status_of(ask))

    # -- HTTP: the human's side ------------------------------------------------------------

    async def _list(self, request: web.Request) -> web.Response:
        """The pending asks, oldest first, and the list's ``cursor``. With ``after=CURSOR``
        and ``wait=SECONDS`` the reply is held until the list differs from the one that
        cursor named (an ask arrived, was settled, withdrawn or expired) or the seconds
        pass: ``inbox attend`` follows the list without polling."""
        try:
            wait = min(float(request.query.get("wait", "0")), MAX_WAIT)
        except ValueError:
            raise Refused(400, "wait: expected a number of seconds") from None
        after = request.query.get("after")
        if after == self._cursor() and wait > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._list_event.wait(), wait)
        asks = sorted((live.ask for live in self._live.values()), key=lambda a: (a.created, a.id))
        return web.json_response(
            {
                "asks": [status_of(ask) for ask in asks],
                "now": time.time(),
                "cursor": self._cursor(),
            }
        )

    async def _settle(self, request: web.Request) -> web.Response:
        data = json_object(await read_json(request))
        state, by = settlement(data)
        live, ask = await self._find(request.match_info["id"])
        if live is None:
            return already_settled(ask, request)
        answer, error_data = outcome_of(state, by, data, ask)
        settled = await self._commit(live, state, answer, error_data, by)
        if settled is None:
            latest = await asyncio.to_thread(self.store.get, ask.id)
            return already_settled(latest or ask, request)
        return web.json_response(status_of(settled))


@web.middleware
async def _unavailable(request: web.Request, handler: Handler) -> web.StreamResponse:
    """503 while the store is unreachable (the store reports the outage once; agents
    try again)."""
    try:
        return await handler(request)
    except StoreUnavailable:
        return web.json_response(
            {"error": "The inbox's store is unreachable; try again.", "code": "UNAVAILABLE"},
            status=503,
            headers={"Retry-After": "1"},
        )
