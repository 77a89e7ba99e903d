"""Test kit: a raw HTTP client for the page's server (what a tab, or an attacker, sends)
and the questions the tests ask."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from user_interaction import (
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


def package_question(id: str = "pkg", *, multi: bool = False) -> AskUserQuestionItem:
    return AskUserQuestionItem(
        id,
        "Which package manager should I use?",
        header="Package manager",
        detail="The lockfile decides what CI installs.",
        options=[
            AskUserQuestionOption("pnpm", "fast, strict"),
            AskUserQuestionOption("npm", "the default"),
            AskUserQuestionOption("yarn"),
        ],
        multi_select=multi,
    )


#: "Promptly", in seconds: what takes milliseconds on an idle machine and can take a few
#: seconds on a busy one, far below aiohttp's 60 s wait for open connections at shutdown
#: that a page never told to go would cost.
PROMPTLY = 10.0

PREVIEWS = {
    "pnpm": "```sh\npnpm install --frozen-lockfile\n```\nStrict `node_modules`, **fast** installs.",
    "npm": "# npm\n\nShips with Node:\n\n- no extra install\n- `package-lock.json`",
}


def previewed_question(id: str = "pkg", *, multi: bool = False) -> AskUserQuestionItem:
    """``package_question`` with Markdown previews on pnpm and npm (yarn has none)."""
    plain = package_question(id, multi=multi)
    options = [
        AskUserQuestionOption(o.label, o.description, PREVIEWS.get(o.label)) for o in plain.options
    ]
    return AskUserQuestionItem(
        id, plain.question, plain.header, options, plain.multi_select, plain.detail
    )


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """Speaks to the server at ``url`` (the printed address, token in its fragment) with
    exactly the headers a test gives: a same-origin page by default."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        assert parts.hostname is not None
        assert parts.port is not None
        self.hostname = parts.hostname
        self.port = parts.port
        self.host = parts.netloc
        self.token = parts.fragment

    @property
    def origin(self) -> str:
        return f"http://{self.host}"

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str | bytes] | None = None,
        body: bytes | None = None,
        host: str | None = None,
        stream: bool = False,
    ) -> Response:
        """One request on a fresh connection; with ``stream``, a 200 response is read only
        up to its first event (an event stream never ends)."""
        connection = http.client.HTTPConnection(self.hostname, self.port, timeout=60)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", self.host if host is None else host)
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            if stream and response.status == 200:
                data = b""
                while _first_event(data) is None:
                    chunk = response.read1(1 << 16)
                    assert chunk, f"the stream ended after {data!r}"
                    data += chunk
            else:
                data = response.read()
            return Response(response.status, dict(response.getheaders()), data)
        finally:
            connection.close()

    def events(self, **kwargs: Any) -> Response:
        return self.request("GET", f"/api/events?token={self.token}", stream=True, **kwargs)

    def snapshot(self) -> list[dict[str, Any]]:
        """The pending asks, as a freshly connected tab receives them."""
        response = self.events()
        assert response.status == 200, response.body
        event = _first_event(response.body)
        assert event is not None, response.body
        assert event[0] == "snapshot", response.body
        asks: list[dict[str, Any]] = event[1]["asks"]
        return asks

    def post(
        self, payload: object, *, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> Response:
        """``POST /api/answer`` as the page sends it; ``headers`` override or add."""
        sent = {
            "Content-Type": "application/json",
            "X-UI-Token": self.token,
            "Origin": self.origin,
        }
        sent.update(headers or {})
        sent = {name: value for name, value in sent.items() if value}
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return self.request("POST", "/api/answer", headers=sent, body=body, **kwargs)


def _first_event(data: bytes) -> tuple[str, Any] | None:
    """The first complete ``event:``/``data:`` block of a stream, or ``None`` yet."""
    for block in data.decode().split("\n\n")[:-1]:
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "event" in fields:
            return fields["event"], json.loads(fields["data"])
    return None


class Stream:
    """An open event stream (one tab), read event by event."""

    def __init__(self, client: Client) -> None:
        self.connection = http.client.HTTPConnection(client.hostname, client.port, timeout=60)
        self.connection.request("GET", f"/api/events?token={client.token}")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        self.buffer = b""

    def next_event(self) -> tuple[str, Any] | None:
        """The next event, or ``None`` when the server ended the stream."""
        while True:
            blocks = self.buffer.split(b"\n\n", 1)
            if len(blocks) == 2:
                block, self.buffer = blocks
                event = _first_event(block + b"\n\n")
                if event is not None:
                    return event
                continue  # retry:, or a ping
            chunk = self.response.read1(1 << 16)
            if not chunk:
                return None
            self.buffer += chunk

    def close(self) -> None:
        self.response.close()
        self.connection.close()


class Agent:
    """Asks on worker threads (``ask_sync``), so a test can play the human meanwhile."""

    def __init__(self, ui: UserInteraction) -> None:
        self.ui = ui
        self.pool = ThreadPoolExecutor(8, thread_name_prefix="agent")

    def ask(
        self,
        *questions: AskUserQuestionItem,
        timeout: float = 300.0,  # pending as long as the test may run, however busy the machine
        signal: AbortSignal | None = None,
    ) -> Future[AskUserQuestionAnswer]:
        request = AskUserQuestionRequest(questions, signal=signal)
        return self.pool.submit(self.ui.ask_sync, request, timeout=timeout)

    def close(self) -> None:
        self.ui.close()  # fails what is still pending, so the workers end at once
        self.pool.shutdown(wait=True)


def error_of(future: Future[Any], timeout: float = 60.0) -> UserInteractionError:
    """The error the ask in ``future`` ended with."""
    error = future.exception(timeout)
    assert isinstance(error, UserInteractionError), error
    return error


def wait_until(predicate: Callable[[], object], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what or predicate}")
        time.sleep(0.01)
