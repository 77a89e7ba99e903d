"""The page's HTTP server (aiohttp, on the provider's own loop): static files, a Server-Sent
Events stream of the pending asks, and ``POST /api/answer``, all behind the loopback guards
of :mod:`user_interaction_web.guards`."""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import subprocess
import sys
from importlib.resources import files
from typing import Any, Final

from aiohttp import web

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
)

from ._answers import read_answer, read_reply
from .guards import (
    MAX_BODY,
    SECURITY_HEADERS,
    Refused,
    add_security_headers,
    error,
    guard,
    read_json,
)
from .previews import with_trees

__all__ = ["MAX_BODY", "SECURITY_HEADERS", "Server"]

_PING_SECONDS: Final = 15.0
_STATIC: Final = {
    "/": ("index.html", "text/html"),
    "/cards.js": ("cards.js", "text/javascript"),
    "/app.js": ("app.js", "text/javascript"),
    "/app.css": ("app.css", "text/css"),
}


class _Ask:
    """One pending ask: its card (what the page renders) and the future its reply settles."""

    __slots__ = ("card", "future", "request")

    def __init__(self, request: AskUserQuestionRequest, card: dict[str, Any]) -> None:
        self.request = request
        self.card = card
        self.future: asyncio.Future[AskUserQuestionAnswer] = (
            asyncio.get_running_loop().create_future()
        )

    def shown(self) -> dict[str, Any]:
        """The card as a page gets it now: with ``timeLeft`` (seconds) under a timeout."""
        signal = self.request.signal
        left = None if signal is None else signal.time_left()
        return self.card if left is None else {**self.card, "timeLeft": left}


#: How an ask ends from the agent's side, not the page's: the withdraw event says so, so
#: pages tell the human instead of dropping the card silently.
_AGENT_ENDED: Final = frozenset({ASK_TIMEOUT, ASK_ABORTED, PROVIDER_DISPOSED})


class _Page:
    """One connected event stream (a tab)."""

    __slots__ = ("queue", "request")

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()  # None: closing

    @property
    def connected(self) -> bool:
        transport = self.request.transport
        return transport is not None and not transport.is_closing()


class Server:
    """The pending asks and the pages showing them; lives on ``loop``."""

    def __init__(self, token: str, loop: asyncio.AbstractEventLoop) -> None:
        self.token = token
        self.loop = loop
        self.origin = ""
        self.url = ""
        self._asks: dict[str, _Ask] = {}
        self._pages: set[_Page] = set()
        self._ids = itertools.count(1)
        self._closing = False
        # The address is printed once per stretch without a page: at start, then again
        # only for an ask after a page had connected and none is now.
        self._announced = True
        self._runner: web.AppRunner | None = None
        self._static = {
            path: (files(__package__).joinpath("static", name).read_bytes(), content_type)
            for path, (name, content_type) in _STATIC.items()
        }

    # -- life cycle ----------------------------------------------------------------------

    async def start(self, host: str, port: int) -> None:
        """Bind ``host:port`` (0: any free port) and start serving."""
        app = web.Application(client_max_size=MAX_BODY, middlewares=[guard(_token_of, self.token)])
        for path in self._static:
            app.router.add_get(path, self._file)
        app.router.add_get("/favicon.ico", self._no_icon)
        app.router.add_get("/api/events", self._events)
        app.router.add_post("/api/answer", self._answer)
        app.on_response_prepare.append(add_security_headers)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        self._runner = runner
        await web.TCPSite(runner, host, port).start()
        bound_port = runner.addresses[0][1]
        self.origin = f"http://{f'[{host}]' if ':' in host else host}:{bound_port}"
        self.url = f"{self.origin}/#{self.token}"

    async def close(self) -> None:
        """End every event stream and release the port. Pending asks have ended already:
        the manager fires each one's signal before it disposes of the provider."""
        self._closing = True
        for page in self._pages:  # say so, so the pages stop trying to reconnect
            page.queue.put_nowait(_event("closed", {}))
            page.queue.put_nowait(None)
        if self._runner is not None:
            await self._runner.cleanup()

    def announce(self) -> None:
        """Print the page's address to stderr (stdout may be a protocol channel)."""
        print(f"user-interaction: answer questions at {self.url}", file=sys.stderr, flush=True)

    def open_browser(self) -> None:
        """Open the page in a browser, in a child process whose output goes nowhere: a
        browser that prints must not write into the agent's stdout."""
        subprocess.Popen(  # our own interpreter, our own URL
            [sys.executable, "-m", "webbrowser", "-t", self.url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    # -- asks ----------------------------------------------------------------------------

    async def serve(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show ``request`` as a card until the page answers it or its signal fires; the
        card is withdrawn from every page however the ask ends."""
        if self._closing:
            raise UserInteractionError("The web provider was disposed.", PROVIDER_DISPOSED)
        ask_id = f"{next(self._ids)}-{secrets.token_hex(4)}"
        questions = with_trees(item.to_dict() for item in request.questions)
        ask = _Ask(request, {"askId": ask_id, "questions": questions})
        self._asks[ask_id] = ask
        signal = request.signal
        ended: str | None = None  # the code of the error the ask ended with
        try:
            self._broadcast("ask", ask.shown())
            self._announce_if_unseen()
            return await (ask.future if signal is None else signal.race(ask.future))
        except UserInteractionError as error:
            ended = error.code
            raise
        except asyncio.CancelledError:  # the provider's task was cancelled: after its signal
            if signal is not None and signal.aborted:
                ended = signal.error().code
            raise
        finally:
            del self._asks[ask_id]
            withdrawn = {"askId": ask_id}
            if ended is not None and ended in _AGENT_ENDED:
                withdrawn["code"] = ended
            self._broadcast("withdraw", withdrawn)

    def _announce_if_unseen(self) -> None:
        if self._announced or any(page.connected for page in self._pages):
            return
        self._announced = True
        self.announce()

    def _broadcast(self, event: str, data: object) -> None:
        message = _event(event, data)
        for page in self._pages:
            page.queue.put_nowait(message)

    # -- HTTP ----------------------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        body, content_type = self._static[request.path]
        return web.Response(body=body, content_type=content_type, charset="utf-8")

    async def _no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        page = _Page(request)
        if self._closing:
            return response
        self._pages.add(page)  # with the snapshot below, in one step: no event is missed
        self._announced = False
        snapshot = [ask.shown() for ask in self._asks.values() if not ask.future.done()]
        try:
            await response.write(b"retry: 1000\n\n" + _event("snapshot", {"asks": snapshot}))
            while True:
                try:
                    message = await asyncio.wait_for(page.queue.get(), _PING_SECONDS)
                except asyncio.TimeoutError:
                    message = b": ping\n\n"
                if message is None:
                    break
                await response.write(message)
        except (ConnectionError, RuntimeError):  # the tab went away
            pass
        finally:
            self._pages.discard(page)
        return response

    async def _answer(self, request: web.Request) -> web.Response:
        try:
            reply = read_reply(await read_json(request))
        except Refused as refused:
            return error(refused.status, str(refused), request)
        ask = self._asks.get(reply.ask_id)
        if ask is None or ask.future.done():
            return error(409, "This question is no longer open.", request)
        if reply.action == "cancel":
            ask.future.set_exception(
                UserInteractionError("The question was dismissed on the web page.", ASK_CANCELLED)
            )
        elif reply.action == "decline":
            ask.future.set_exception(
                UserInteractionError("The human declined to answer on the web page.", ASK_DECLINED)
            )
        else:
            try:
                answer = read_answer(ask.request, reply.answers)
            except Refused as refused:
                return error(refused.status, str(refused), request, extra=refused.extra)
            ask.future.set_result(answer)
        return web.json_response({"ok": True})


def _token_of(request: web.Request) -> str:
    """The token a request carries: ``?token=`` on the event stream (an ``EventSource``
    cannot set headers), the ``X-UI-Token`` header on a POST."""
    if request.method == "GET":
        return request.query.get("token", "")
    return request.headers.get("X-UI-Token", "")


def _event(name: str, data: object) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
