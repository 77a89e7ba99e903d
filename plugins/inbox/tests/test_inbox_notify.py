"""Notifications of new asks through Apprise, to real receivers on loopback: an aiohttp
hook (Apprise's ``json://``) and an SMTP server (``mailto://``, aiosmtpd). What a message
says (title, plain-text body, link without the token, model text neutralised, 300
characters at most); that a failing or hanging service never delays the agent's ask; and
that each ask is sent once: again after a restart only when it was never marked sent."""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import re
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from inbox_support import CLI, NPM, REQUEST, Agent, Inbox, cli, environment
from user_interaction_inbox._address import TOKEN_HEADER
from user_interaction_inbox._notify import (
    MAX_TEXT,
    NOTIFY_ENV,
    Notifier,
    NotifyError,
    message,
    plain,
)
from user_interaction_inbox._server import InboxServer
from user_interaction_inbox._store import SqliteStore, StoredAsk

from user_interaction.terminal import visible

TOKEN = "t0ken-never-in-a-link"
HOSTILE = "\x1b[2J\x1b]0;owned\x07Deploy\u202e\u200b\U000e0041 now?\r\nReally\x9b1m"


class Hook:
    """An aiohttp receiver of Apprise's ``json://`` messages on a loopback port. With
    ``hold`` set it keeps each request open until :attr:`release` is set (a service that
    accepts and does not answer), then answers ``status``."""

    def __init__(self, *, hold: bool = False, status: int = 200) -> None:
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.received: list[dict[str, Any]] = []
        self.hold = hold
        self.status = status
        self.holding = asyncio.Event()
        self.release = asyncio.Event()
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def _receive(self, request: web.Request) -> web.Response:
        data = await request.json()
        self.received.append(data)
        self.messages.put_nowait(data)
        if self.hold:
            self.holding.set()
            await self.release.wait()
        return web.Response(status=self.status, text="ok")

    async def __aenter__(self) -> Hook:
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"json://127.0.0.1:{port}/hook"
        return self

    async def __aexit__(self, *_: object) -> None:
        self.release.set()
        assert self._runner is not None
        await self._runner.cleanup()


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@asynccontextmanager
async def serving(
    path: Path, notifier: Notifier | None, public_url: str | None = None
) -> AsyncIterator[tuple[InboxServer, SqliteStore, aiohttp.ClientSession]]:
    """An inbox server in this process on the SQLite file ``path``; closed (which waits
    for the messages under way) on leaving."""
    store = SqliteStore(path)
    server = InboxServer(store, TOKEN, notifier=notifier, public_url=public_url)
    await server.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession(
            base_url=server.base, headers={TOKEN_HEADER: TOKEN}
        ) as session:
            yield server, store, session
    finally:
        await server.close()
        store.close()


async def post(session: aiohttp.ClientSession, request: dict[str, Any], **extra: Any) -> Any:
    async with session.post("/api/asks", json={"request": request, **extra}) as response:
        assert response.status == 200, await response.text()
        return await response.json()


def unnotified(path: Path) -> list[str]:
    """The ids of the asks the store at ``path`` holds as never sent."""
    store = SqliteStore(path)
    try:
        return [ask.id for ask in store.unnotified()]
    finally:
        store.close()


def hostile_request() -> dict[str, Any]:
    return {
        "questions": [
            {
                "id": "go",
                "header": "Ship\x1b[31m it",
                "question": HOSTILE,
                "options": [{"label": "Yes"}],
            },
            {"id": "long", "question": "Why " + "very " * 200 + "long?"},
        ]
    }


def assert_neutral(text: str) -> None:
    """Nothing in ``text`` acts on a terminal or hides from its reader (beyond the line
    breaks the body is made of)."""
    for line in text.split("\n"):
        assert visible(line) == line, line


# -- the message ---------------------------------------------------------------------------


def test_the_message_is_plain_text_of_at_most_300_characters_and_the_link() -> None:
    ask = StoredAsk(
        id="abc123",
        request=hostile_request(),
        agent="build\x1b[2J bot\u200b",
        key=None,
        created=1.0,
        deadline=None,
    )
    title, body = message(ask, "https://inbox.example/asks/abc123")
    assert title == "build[2J bot asks"  # ESC removed: what is left is inert text
    text, link = body.rsplit("\n", 1)
    assert link == "https://inbox.example/asks/abc123"
    assert MAX_TEXT - 1 <= len(text) <= MAX_TEXT
    assert text.endswith("…")
    first, second = text.split("\n")
    assert first == "Ship[31m it: [2J]0;ownedDeploy now? Really1m"
    assert second.startswith("Why very very")
    assert_neutral(title)
    assert_neutral(body)
    # every kind of control or invisible character the terminal helper knows goes
    assert plain("a\x00b\x7fc\x85d\u2066e\ufeff\U000e007ff\u2028g\tz") == "abc def g z"
    assert plain("") == ""
    assert plain("x" * 500, 10) == "x" * 9 + "…"
    questions = {"questions": [{"id": "q", "question": "?"}]}
    nameless = StoredAsk("i", questions, "\u200b", None, 1.0, None)
    assert message(nameless, "L") == ("An agent asks", "?\nL")


def test_a_new_ask_is_announced_once_with_a_link_without_the_token(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Hook() as hook:
            async with serving(tmp_path / "inbox.sqlite3", Notifier([hook.url])) as (
                server,
                _,
                session,
            ):
                ask = await post(session, hostile_request(), agent="deploy\x07 agent")
                got = await hook.messages.get()
                assert got["title"] == "deploy agent asks"
                assert got["type"] == "info"
                text, link = got["message"].rsplit("\n", 1)
                assert link == f"{server.base}/asks/{ask['id']}"
                assert TOKEN not in got["message"]
                assert TOKEN not in got["title"]
                assert len(text) <= MAX_TEXT
                assert text.startswith("Ship[31m it: [2J]0;ownedDeploy now? Really1m\nWhy")
                assert_neutral(got["message"])
                # Joining the ask with its key is not a new ask: no second message.
                keyed = {**REQUEST, "key": "deploy-42"}
                first = await post(session, keyed, agent="a")
                joined = await post(session, keyed, agent="a")
                assert joined["id"] == first["id"]
                second = await hook.messages.get()
                assert second["message"].endswith(f"/asks/{first['id']}")
            # closing waited for the messages under way: both are marked sent
            assert hook.received == [got, second]
        assert unnotified(tmp_path / "inbox.sqlite3") == []

    asyncio.run(scenario())


def test_the_link_names_the_public_url_behind_a_tunnel_or_balancer(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Hook() as hook:
            notifier = Notifier([hook.url])
            public = "https://inbox.example.com/team"
            async with serving(tmp_path / "inbox.sqlite3", notifier, public) as (_, _, session):
                ask = await post(session, REQUEST, agent="a")
                got = await hook.messages.get()
        assert got["message"] == f"Which package manager?\n{public}/asks/{ask['id']}"

    asyncio.run(scenario())


# -- failing and hanging services ----------------------------------------------------------


def test_a_hanging_service_never_delays_an_ask_and_is_marked_once_it_accepts(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with (
            Hook(hold=True) as hook,
            serving(tmp_path / "inbox.sqlite3", Notifier([hook.url])) as (_, store, session),
        ):
            first = await post(session, REQUEST, agent="a")
            await hook.holding.wait()  # the service has the message and says nothing
            # The agents' asks are acknowledged while the service still holds it.
            second = await post(session, asking("second"), agent="b")
            async with session.get("/api/asks") as response:
                listed = [ask["id"] for ask in (await response.json())["asks"]]
            assert listed == [first["id"], second["id"]]
            assert not hook.release.is_set()
            assert [ask.id for ask in store.unnotified()] == [first["id"], second["id"]]
            hook.release.set()  # now it accepts: both are sent and marked
            assert {(await hook.messages.get())["title"] for _ in range(2)} == {
                "a asks",
                "b asks",
            }
        assert unnotified(tmp_path / "inbox.sqlite3") == []

    asyncio.run(scenario())


def asking(question_id: str) -> dict[str, Any]:
    return {"questions": [{"id": question_id, "question": f"{question_id}?"}]}


@pytest.mark.parametrize("service", ["refused", "silent", "error"])
def test_a_failing_service_is_logged_once_and_leaves_the_ask_unmarked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, service: str
) -> None:
    """A refused connection, a service that never answers (past the bounded wait, here
    shortened) and a 500: the ask is acknowledged all the same, one warning says why, and
    the ask stays unmarked so that the next server to start sends it again."""

    async def scenario() -> None:
        async with Hook(hold=service == "silent", status=500) as hook:
            url = f"json://127.0.0.1:{refused_port()}/hook" if service == "refused" else hook.url
            notifier = Notifier([url], timeout=0.5 if service == "silent" else 30.0)
            async with serving(tmp_path / "inbox.sqlite3", notifier) as (_, _, session):
                ask = await post(session, REQUEST, agent="a")
                if service == "silent":
                    await hook.holding.wait()
            assert unnotified(tmp_path / "inbox.sqlite3") == [ask["id"]]
            warnings = [
                record.getMessage()
                for record in caplog.records
                if record.name == "user_interaction_inbox._notify"
            ]
            assert len(warnings) == 1, warnings
            assert warnings[0].startswith(f"the notification of ask {ask['id']} was not sent: ")
            if service == "silent":
                assert warnings[0].endswith("no answer within 0.5 s")
            assert "Traceback" not in caplog.text

    with caplog.at_level(logging.WARNING):
        asyncio.run(scenario())


# -- at least once, once in the normal case -------------------------------------------------


def test_a_restart_sends_what_was_never_sent_and_only_that(tmp_path: Path) -> None:
    path = tmp_path / "inbox.sqlite3"

    async def scenario() -> None:
        async with serving(path, None) as (_, _, session):  # no --notify: nothing is sent
            old = await post(session, asking("old"), agent="a")
            new = await post(session, asking("new"), agent="a")
            done = await post(session, asking("done"), agent="a")
            async with session.post(
                f"/api/asks/{done['id']}/settle", json={"action": "cancel", "by": "ann"}
            ) as response:
                assert response.status == 200
        async with Hook() as hook:
            async with serving(path, Notifier([hook.url])) as (server, _, session):
                sent = {(await hook.messages.get())["message"] for _ in range(2)}
                assert sent == {
                    f"old?\n{server.base}/asks/{old['id']}",
                    f"new?\n{server.base}/asks/{new['id']}",
                }
                later = await post(session, asking("later"), agent="a")
                assert (await hook.messages.get())["message"].startswith("later?\n")
            # A third start finds everything marked: it sends nothing again.
            assert unnotified(path) == []
            async with serving(path, Notifier([hook.url])):
                pass
            assert len(hook.received) == 3
            sent_ids = {got["message"].rsplit("/", 1)[1] for got in hook.received}
            assert sent_ids == {old["id"], new["id"], later["id"]}

    asyncio.run(scenario())


# -- inbox serve: mail, the environment variable, refusals at start --------------------------


class Mailbox:
    """An SMTP server (aiosmtpd) on a loopback port, on a loop of its own in a thread;
    each mail it receives is put on :attr:`mails`."""

    def __init__(self) -> None:
        self.mails: queue.Queue[Message] = queue.Queue()

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
        self.mails.put(message_from_bytes(envelope.content))
        return "250 OK"


@contextmanager
def mail_server() -> Iterator[tuple[Mailbox, str]]:
    """A :class:`Mailbox` and the Apprise ``mailto://`` URL that sends to it."""
    from aiosmtpd.smtp import SMTP

    mailbox = Mailbox()
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(loop.create_server(lambda: SMTP(mailbox), "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield (
            mailbox,
            (
                f"mailto://127.0.0.1:{port}?from=inbox@example.com&to=human@example.com"
                "&mode=insecure"
            ),
        )
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        server.close()
        loop.run_until_complete(server.wait_closed())
        loop.close()


def test_inbox_serve_mails_each_new_ask_to_the_services_of_the_environment(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_server() as (mailbox, url), mail_server() as (second, second_url):
        monkeypatch.setenv(NOTIFY_ENV, f"  {url}\n\t{second_url} ")
        inbox = Inbox(state)
        try:
            reply = inbox.call("POST", "/api/asks", {"request": hostile_request(), "agent": "ci"})
            assert reply.status == 200, reply
            for box in (mailbox, second):
                mail = box.mails.get(timeout=60)
                assert mail["Subject"] == "ci asks"
                assert mail["To"] == "human@example.com"
                body = mail.get_payload(decode=True)
                assert isinstance(body, bytes)
                text = body.decode().replace("\r\n", "\n").strip()
                assert text.endswith(f"\n{inbox.address.base}/asks/{reply.body['id']}")
                assert inbox.address.token not in text
                assert "\x1b" not in text
        finally:
            assert "Traceback" not in inbox.stop()
    # Both services accepted it: marked sent in the store the server left.
    assert unnotified(state / "inbox.sqlite3") == []


def test_notify_on_the_command_line_wins_over_the_environment(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NOTIFY_ENV, "nosuch://ignored")
    with mail_server() as (mailbox, url):
        inbox = Inbox(state, "--notify", url, "--public-url", "https://inbox.example.com/")
        try:
            reply = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "ci"})
            mail = mailbox.mails.get(timeout=60)
            body = mail.get_payload(decode=True)
            assert isinstance(body, bytes)
            text = body.decode().replace("\r\n", "\n").strip()
            link = f"https://inbox.example.com/asks/{reply.body['id']}"
            assert text == f"Which package manager?\n{link}"
        finally:
            inbox.stop()


def test_an_agent_is_answered_while_the_notification_service_hangs(state: Path) -> None:
    """End to end: an agent process asks through the inbox provider while the only
    notification service has taken the message's connection and says nothing: the ask is
    listed, answered, and the agent has its answer all the same."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    connected = threading.Event()

    def hold() -> None:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        held.append(connection)
        connected.set()

    threading.Thread(target=hold, daemon=True).start()
    port = listener.getsockname()[1]
    inbox = Inbox(state, "--notify", f"json://127.0.0.1:{port}/hook")
    try:
        agent = Agent(state)
        assert connected.wait(60), "the message never reached the service"
        listed = inbox.call("GET", "/api/asks").body
        while not listed["asks"]:  # held until the list changes
            listed = inbox.call("GET", f"/api/asks?after={listed['cursor']}&wait=30").body
        (ask,) = listed["asks"]
        answered = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
        assert answered.returncode == 0, answered.stderr
        assert agent.outcome() == {"answer": NPM}
        held[0].settimeout(30)
        assert held[0].recv(65536).startswith(b"POST /hook ")  # the message it never answered
    finally:
        inbox.stop()
        listener.close()
        for connection in held:
            connection.close()


def serve(state: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``inbox serve ARGS`` that is expected to refuse to start."""
    return subprocess.run(
        [*CLI, "inbox", "serve", "--port", "0", *args],
        env=environment(state, **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_url_apprise_does_not_know_is_refused_without_showing_its_secret() -> None:
    for url in ("nosuch://123456:bot-secret@x", "json://", "not a url", "tgram://bot-secret"):
        with pytest.raises(NotifyError, match="not a notification URL Apprise knows") as caught:
            Notifier([f"json://127.0.0.1/bot-secret-{url}", url])
        assert "bot-secret" not in str(caught.value)


def test_inbox_serve_refuses_a_bad_notify_url_at_start(state: Path) -> None:
    secret = "123456:bot-secret"
    for args, env, source in (
        (("--notify", f"nosuch://{secret}@x"), {}, ""),
        ((), {NOTIFY_ENV: f"tgram://{secret}/x nonsense"}, f" (from {NOTIFY_ENV})"),
    ):
        result = serve(state, *args, **env)
        assert result.returncode == 2, result.stderr
        assert "not a notification URL Apprise knows" in result.stderr
        assert result.stderr.strip().endswith(source or "address)")
        assert secret not in result.stderr
        assert "Traceback" not in result.stderr
        assert not (state / "inbox.json").exists()
    result = serve(state, "--public-url", "ftp://inbox.example.com")
    assert result.returncode == 2
    assert "--public-url 'ftp://inbox.example.com': expected http(s)://HOST" in result.stderr


def test_without_apprise_notify_names_the_extra(state: Path) -> None:
    """Apprise made unimportable in the server's process (as when the extra is not
    installed): the error names what to install."""
    hide = (
        "import runpy, sys; sys.modules['apprise'] = None; "
        "sys.argv[0] = 'user-interaction'; "
        "runpy.run_module('user_interaction', run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", hide, "inbox", "serve", "--port", "0", "--notify", "json://x"],
        env=environment(state),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "pip install 'user-interaction-inbox[notify]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_apprise_urls_the_docs_give_are_ones_apprise_knows() -> None:
    docs = Path(__file__).resolve().parents[3] / "docs"
    team = (docs / "inbox-team.md").read_text(encoding="utf-8")
    section = team.split("## Notifications", 1)[1].split("\n## ", 1)[0]
    urls = re.findall(r"^\| [^|]+ \| `([a-z]+://[^`]+)` \|$", section, re.M)
    assert len(urls) == 6
    inbox = (docs / "inbox.md").read_text(encoding="utf-8")
    urls += re.findall(r"--notify '([^']+)'", inbox)
    assert len(urls) == 8
    Notifier(urls)  # NotifyError names the first it does not know
