"""The provider: owns the page's server thread and hands each ask over to it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
import threading
from typing import TYPE_CHECKING, Awaitable, Final

from user_interaction import AskUserQuestionAnswer, AskUserQuestionRequest, hookimpl

if TYPE_CHECKING:
    from ._server import Server

__all__ = ["OPEN_ENV", "PORT_ENV", "WebProvider"]

#: Environment variable: the port to listen on when ``port`` is 0.
PORT_ENV: Final = "USER_INTERACTION_WEB_PORT"
#: Environment variable: ``1`` opens the page in a browser when the server starts.
OPEN_ENV: Final = "USER_INTERACTION_WEB_OPEN"

_HOSTS: Final = ("127.0.0.1", "::1")
_STOP_SECONDS: Final = 5.0

_token_lock = threading.Lock()
_token: str | None = None


def _process_token() -> str:
    """The secret every page of this process must present (made once per process)."""
    global _token
    with _token_lock:
        if _token is None:
            _token = secrets.token_urlsafe(32)
        return _token


class WebProvider:
    """Shows every pending ask as a card on a local web page.

    ``host`` must be a loopback address (``"127.0.0.1"`` or ``"::1"``); anything else is a
    ``ValueError``. ``port`` 0 means ``USER_INTERACTION_WEB_PORT`` if set, else a free
    port. ``open_browser=True`` (or ``USER_INTERACTION_WEB_OPEN=1``) opens the page when
    the server starts; the address is printed to stderr either way. Concurrent asks are
    separate cards (``serial = False``).
    """

    #: The name the manager reports for this provider.
    name: Final = "web"
    #: Concurrent asks are shown side by side.
    serial: Final = False
    #: Chosen after ``tui`` and ``stdio`` when no provider is named.
    priority: Final = 5

    def __init__(self, host: str = "127.0.0.1", port: int = 0, open_browser: bool = False) -> None:
        if host not in _HOSTS:
            raise ValueError(
                f"host must be a loopback address ({' or '.join(_HOSTS)}), got {host!r}: "
                "the page answers for the agent, so it is never served to the network "
                "(use ssh -L to reach it from another machine)"
            )
        if port == 0 and os.environ.get(PORT_ENV, "").strip():
            raw = os.environ[PORT_ENV].strip()
            if not raw.isdigit():
                raise ValueError(f"{PORT_ENV} must be a port number, got {raw!r}")
            port = int(raw)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be a number from 0 to 65535, got {port!r}")
        self._host = host
        self._port = port
        self._open_browser = bool(open_browser) or os.environ.get(OPEN_ENV, "").strip() == "1"
        self._lock = threading.Lock()
        self._thread: _ServerThread | None = None

    @staticmethod
    def available() -> bool:
        """Always: a loopback web page needs nothing from the terminal."""
        return True

    def __repr__(self) -> str:
        thread = self._thread
        if thread is not None and thread.ready.done() and thread.ready.exception() is None:
            return f"<WebProvider {thread.ready.result().origin}/>"
        port = self._port or "auto"
        return f"<WebProvider {self._host} port={port} (not started)>"

    @property
    def url(self) -> str | None:
        """The page's address with its token (``None`` until the server has started)."""
        thread = self._thread
        if thread is None or not thread.ready.done() or thread.ready.exception() is not None:
            return None
        return thread.ready.result().url

    def start(self) -> str:
        """Start the server now (it starts by itself at the first ask); return the page's
        address. Blocks until the port is bound."""
        return self._starting().ready.result(timeout=60).url

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show ``request`` as a card and return the answer given on the page. The ask ends
        through its signal otherwise (abort, timeout, disposal: the manager fires it
        before disposing of the provider), here while the server starts, else on the
        server's loop, which withdraws the card."""
        signal = request.signal
        ready = asyncio.wrap_future(self._starting().ready)
        server = await (ready if signal is None else signal.race(ready))
        future = asyncio.run_coroutine_threadsafe(_settled(server.serve(request)), server.loop)
        answer, error = await asyncio.wrap_future(future)
        if error is not None:
            raise error
        assert answer is not None
        return answer

    def dispose(self) -> None:
        """Stop the server: every page hears that the agent has stopped asking, and the
        port is released. A later ask starts the server again."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.stop()
            thread.join()

    def _starting(self) -> _ServerThread:
        with self._lock:
            thread = self._thread
            failed = thread is not None and thread.ready.done() and thread.ready.exception()
            if thread is None or failed:  # a failed start (port in use) is retried
                thread = _ServerThread(self._host, self._port, self._open_browser)
                self._thread = thread
            return thread


async def _settled(
    serving: Awaitable[AskUserQuestionAnswer],
) -> tuple[AskUserQuestionAnswer | None, Exception | None]:
    """``serving``'s answer or error, never raised on the server's loop: the manager
    fires the ask's signal and cancels its task at once, so the server's task can end
    with the signal's error just as its waiter here is cancelled, and asyncio would log
    that error as never retrieved."""
    try:
        return await serving, None
    except Exception as error:
        return None, error


class _ServerThread:
    """The server's own thread and event loop; aiohttp is imported on this thread."""

    def __init__(self, host: str, port: int, open_browser: bool) -> None:
        self.ready: concurrent.futures.Future[Server] = concurrent.futures.Future()
        self.ready.set_running_or_notify_cancel()  # a waiter that gives up cannot cancel it
        self._host = host
        self._port = port
        self._open_browser = open_browser
        self._stopping: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="user-interaction-web", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            from ._server import Server  # the first ask pays for importing aiohttp, here

            asyncio.run(self._main(Server))
        except BaseException as error:  # handed to whoever waits for the start
            if not self.ready.done():
                self.ready.set_exception(error)

    async def _main(self, server_class: type[Server]) -> None:
        self._stopping = asyncio.Event()
        server = server_class(_process_token(), asyncio.get_running_loop())
        try:
            await server.start(self._host, self._port)
            server.announce()
            if self._open_browser:
                server.open_browser()
            self.ready.set_result(server)
            await self._stopping.wait()
        finally:
            await server.close()

    def stop(self) -> None:
        """Ask the loop to close the server (after a start still under way)."""
        try:
            server = self.ready.result(timeout=60)
        except Exception:  # it never started: nothing to stop
            return
        stopping = self._stopping
        assert stopping is not None
        try:
            server.loop.call_soon_threadsafe(stopping.set)
        except RuntimeError:  # the loop has already ended
            pass

    def join(self) -> None:
        self._thread.join(_STOP_SECONDS)
