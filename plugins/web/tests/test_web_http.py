"""The server without a browser: its security rules (the token, the Host and Origin checks,
what it refuses), the answer protocol's status codes, and the provider's life cycle."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import wait
from importlib.resources import files
from pathlib import Path

import pytest
import user_interaction_web
from child_support import child_stderr
from user_interaction_web import WebProvider
from user_interaction_web.previews import tree
from web_support import (
    PREVIEWS,
    PROMPTLY,
    Agent,
    Client,
    Stream,
    error_of,
    package_question,
    previewed_question,
    wait_until,
)

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AbortController,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


def pending(client: Client, count: int = 1) -> list[dict[str, object]]:
    wait_until(lambda: len(client.snapshot()) == count, what=f"{count} pending asks")
    return client.snapshot()


# -- check 7: token, Host, Origin, content type ----------------------------------------------


def test_events_need_the_token(client: Client) -> None:
    assert client.request("GET", "/api/events").status == 403
    assert client.request("GET", "/api/events?token=wrong").status == 403
    assert client.request("GET", f"/api/events?token={client.token}x").status == 403
    assert client.request("GET", "/api/events?token=%C3%A9").status == 403  # not ASCII
    assert client.events().status == 200


def test_a_foreign_host_is_refused_everywhere(client: Client) -> None:
    for path in ("/", "/app.js", f"/api/events?token={client.token}"):
        assert client.request("GET", path, host="evil.example").status == 421
        assert client.request("GET", path, host="evil.example:80").status == 421
        assert client.request("GET", path, host="127.0.0.1.evil.example").status == 421
        assert client.request("GET", path, host="").status == 421
    assert client.post({"askId": "x", "action": "cancel"}, host="evil.example").status == 421


def test_the_port_of_the_host_is_ignored_for_ssh_tunnels(client: Client) -> None:
    # ssh -L 9000:127.0.0.1:PORT arrives as "localhost:9000"
    for host in ("localhost:9000", "LOCALHOST", "127.0.0.1", "[::1]:8765"):
        assert client.request("GET", "/", host=host).status == 200, host
        events = client.request("GET", f"/api/events?token={client.token}", host=host, stream=True)
        assert events.status == 200, host
    tunnelled = client.post(
        {"askId": "nope", "action": "cancel"},
        host="localhost:9000",
        headers={"Origin": "http://localhost:9000"},
    )
    assert tunnelled.status == 409  # past every guard: only the ask is unknown


def test_posts_need_the_page_origin(client: Client, agent: Agent) -> None:
    future = agent.ask(package_question())
    (card,) = pending(client)
    cancel = {"askId": card["askId"], "action": "cancel"}
    assert client.post(cancel, headers={"Origin": "http://evil.example"}).status == 403
    assert client.post(cancel, headers={"Origin": "null"}).status == 403
    assert client.post(cancel, headers={"Origin": "http://127.0.0.1:1"}).status == 403
    assert client.post(cancel, headers={"Origin": ""}).status == 403  # no Origin at all
    assert client.post(cancel, headers={"X-UI-Token": ""}).status == 403
    assert client.post(cancel, headers={"X-UI-Token": "wrong"}).status == 403
    events = client.request(
        "GET",
        f"/api/events?token={client.token}",
        headers={"Origin": "http://evil.example"},
    )
    assert events.status == 403
    assert not future.done()
    assert client.post(cancel).status == 200
    assert error_of(future).code == ASK_CANCELLED


def test_only_json_is_accepted(client: Client, agent: Agent) -> None:
    future = agent.ask(package_question())
    (card,) = pending(client)
    form = f"askId={card['askId']}&action=cancel".encode()
    for content_type in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data"):
        response = client.post(form, headers={"Content-Type": content_type})
        assert response.status == 415, content_type
    assert client.post(b"{not json").status == 400
    assert client.post([1, 2]).status == 400
    assert client.post({"askId": card["askId"], "action": "maybe"}).status == 400
    assert client.post({"askId": card["askId"], "action": "cancel", "extra": 1}).status == 400
    assert not future.done()
    assert client.post({"askId": card["askId"], "action": "cancel"}).status == 200
    assert error_of(future).code == ASK_CANCELLED


def test_a_preflight_is_never_approved(client: Client) -> None:
    response = client.request(
        "OPTIONS",
        "/api/answer",
        headers={
            "Origin": "http://evil.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-ui-token, content-type",
        },
    )
    assert response.status >= 400
    assert not any(name.lower().startswith("access-control") for name in response.headers)


def test_bodies_are_limited_to_64_kib(client: Client, agent: Agent) -> None:
    future = agent.ask(package_question())
    (card,) = pending(client)
    padding = "x" * (64 * 1024)
    big = {
        "askId": card["askId"],
        "action": "accept",
        "answers": [{"id": "pkg", "custom": padding}],
    }
    assert client.post(big).status == 413
    assert not future.done()
    answers = [{"id": "pkg", "selected": ["npm"]}]
    assert (
        client.post({"askId": card["askId"], "action": "accept", "answers": answers}).status == 200
    )
    assert future.result(PROMPTLY).get("pkg").selected == ("npm",)  # type: ignore[union-attr]


def test_bad_bytes_deep_json_and_malformed_http_are_400_with_one_log_line(
    client: Client, agent: Agent, caplog: pytest.LogCaptureFixture
) -> None:
    future = agent.ask(package_question())
    (card,) = pending(client)
    caplog.set_level("WARNING", logger="user_interaction_web.guards")
    token = client.token.encode() + b"\xff"
    response = client.request(
        "POST",
        "/api/answer",
        headers={"X-UI-Token": token, "Origin": client.origin, "Content-Type": "application/json"},
        body=b"{}",
    )
    assert response.status == 400, response.body
    assert "UTF-8" in response.json()["error"]
    deep = b"[" * 30_000 + b"]" * 30_000
    assert client.post(deep).status == 400
    assert client.post(b"\xff\xfe{}").status == 400
    caplog.set_level("WARNING", logger="aiohttp.server")
    with socket.create_connection((client.hostname, client.port), timeout=10) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n")
        assert raw.recv(100).startswith(b"HTTP/1.0 400 ")
    # Only the two loggers under test: a busy machine adds asyncio's slow-callback warnings.
    ours = ("user_interaction_web.guards", "aiohttp.server")

    def records() -> list[logging.LogRecord]:
        return [record for record in caplog.records if record.name in ours]

    wait_until(lambda: len(records()) == 4, what="the malformed request's log line")
    lines = [record.getMessage() for record in records()]
    assert all(line.startswith("400 POST /api/answer: ") for line in lines[:3]), lines
    assert lines[3].startswith("400 (malformed request): "), lines
    assert all(record.exc_info is None for record in records())
    assert client.token not in " ".join(lines)
    assert not future.done()
    assert client.post({"askId": card["askId"], "action": "cancel"}).status == 200
    assert error_of(future).code == ASK_CANCELLED


# -- check 8: loopback only, headers on every response -------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "localhost", "192.168.1.10", "", "127.0.0.2"])
def test_only_loopback_hosts_are_accepted(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        WebProvider(host=host)


@pytest.mark.parametrize("port", [-1, 65536, "8080", 1.5, True])
def test_the_port_is_checked(port: object) -> None:
    with pytest.raises(ValueError, match="port"):
        WebProvider(port=port)  # type: ignore[arg-type]


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
def test_the_socket_is_bound_to_127_0_0_1_only(client: Client) -> None:
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.split(":")
            if int(port, 16) == client.port and state == "0A":  # LISTEN
                listening.append(address)
    assert listening == ["0100007F"]  # 127.0.0.1, and nothing on tcp6


def test_the_port_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("USER_INTERACTION_WEB_PORT", str(port))
    provider = WebProvider()
    try:
        assert provider.start().startswith(f"http://127.0.0.1:{port}/#")
    finally:
        provider.dispose()
    assert WebProvider(port=0) is not None
    monkeypatch.setenv("USER_INTERACTION_WEB_PORT", "eighty")
    with pytest.raises(ValueError, match="USER_INTERACTION_WEB_PORT"):
        WebProvider()


def test_security_headers_on_every_response(client: Client) -> None:
    responses = {
        "page": client.request("GET", "/"),
        "script": client.request("GET", "/app.js"),
        "style": client.request("GET", "/app.css"),
        "missing": client.request("GET", "/nothing"),
        "no token": client.request("GET", "/api/events"),
        "foreign host": client.request("GET", "/", host="evil.example"),
        "form post": client.post(b"a=1", headers={"Content-Type": "text/plain"}),
        "closed ask": client.post({"askId": "1-x", "action": "cancel"}),
        "events": client.events(),
    }
    for what, response in responses.items():
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (what, name)
    assert responses["page"].headers["Content-Type"] == "text/html; charset=utf-8"
    assert responses["script"].headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert responses["style"].headers["Content-Type"] == "text/css; charset=utf-8"
    assert responses["events"].headers["Content-Type"] == "text/event-stream"
    assert responses["missing"].status == 404


def test_the_page_has_no_inline_script_and_no_external_assets() -> None:
    static = files(user_interaction_web).joinpath("static")
    html = static.joinpath("index.html").read_text()
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S)
    assert scripts == ["", ""]  # two scripts, from files: the shared cards, then the page's
    assert re.search(
        r"<script\b[^>]*\bsrc=\"cards\.js\"[^>]*>.*<script\b[^>]*\bsrc=\"app\.js\"", html, re.S
    )
    assert not re.search(r"\son\w+=", html)  # no event-handler attributes
    assert "style" not in html.replace("stylesheet", "")
    for name in ("index.html", "cards.js", "app.js", "app.css"):
        text = static.joinpath(name).read_text()
        assert not re.search(r"(https?:)?//[\w.-]+\.\w", text.replace("http://", "")), name
        assert "@import" not in text
    for name in ("cards.js", "app.js"):
        script = static.joinpath(name).read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in script, (name, sink)


# -- the answer protocol --------------------------------------------------------------------


def test_invalid_answers_are_422_with_their_path_and_the_ask_stays_open(
    client: Client, agent: Agent
) -> None:
    question = package_question()
    future = agent.ask(question, AskUserQuestionItem("name", "What name?"))
    (card,) = pending(client)

    def accept(*answers: dict[str, object]) -> tuple[int, str]:
        response = client.post({"askId": card["askId"], "action": "accept", "answers": answers})
        return response.status, response.json().get("error", "")

    assert accept({"id": "pkg", "selected": ["bun"]}) == (
        422,
        "answers[0].selected[0]: 'bun' was not offered for question 'pkg'",
    )
    assert accept({"id": "pkg", "selected": ["pnpm", "npm"]}) == (
        422,
        "answers[0].selected: question 'pkg' is single-select but 2 labels were selected",
    )
    assert accept({"id": "name", "selected": [], "custom": "  "}) == (
        422,
        "answers[0].custom: must not be blank",
    )
    assert accept({"id": "pkg", "selected": ["npm"], "custom": "x"})[0] == 422
    assert accept({"id": "pkg"}, {"id": "pkg"})[0] == 422
    assert accept({"id": "other"})[0] == 422
    assert accept({"id": "name", "selected": ["x"]})[0] == 422
    assert accept({"id": "pkg", "selected": "npm"})[0] == 400
    assert client.post({"askId": card["askId"], "action": "accept", "answers": {}}).status == 400
    assert not future.done()
    assert len(client.snapshot()) == 1  # still shown
    assert accept({"id": "pkg", "selected": ["yarn"]}, {"id": "name", "custom": "Shed"}) == (
        200,
        "",
    )
    answer = future.result(PROMPTLY)
    assert answer.get("pkg").selected == ("yarn",)  # type: ignore[union-attr]
    assert answer.get("name").custom == "Shed"  # type: ignore[union-attr]
    assert accept({"id": "pkg", "selected": ["npm"]})[0] == 409  # the first answer won


def test_notes_go_beside_a_selection_else_422(client: Client, agent: Agent) -> None:
    future = agent.ask(package_question(), package_question("many", multi=True))
    (card,) = pending(client)

    def accept(*answers: dict[str, object]) -> tuple[int, str]:
        response = client.post({"askId": card["askId"], "action": "accept", "answers": answers})
        return response.status, response.json().get("error", "")

    nothing = "notes go beside a selection, but nothing is selected"
    assert accept({"id": "pkg", "selected": ["npm"], "notes": " \n "}) == (
        422,
        "answers[0].notes: must not be blank",
    )
    assert accept({"id": "pkg", "selected": [], "notes": "pin it"}) == (
        422,
        f"answers[0].notes: {nothing}",
    )
    assert accept({"id": "pkg", "selected": ["npm"]}, {"id": "many", "notes": "x"}) == (
        422,
        f"answers[1].notes: {nothing}",
    )
    assert accept({"id": "pkg", "custom": "bun", "notes": "pinned"}) == (
        422,
        f"answers[0].notes: {nothing}",
    )
    assert accept({"id": "pkg", "selected": ["npm"], "notes": 3})[0] == 400
    assert not future.done()
    assert len(client.snapshot()) == 1  # still shown
    assert accept(
        {"id": "pkg", "selected": ["npm"], "notes": "but pin the version"},
        {"id": "many", "selected": ["pnpm", "yarn"], "notes": "yarn for the docs"},
    ) == (200, "")
    answer = future.result(PROMPTLY)
    pkg, many = answer.get("pkg"), answer.get("many")
    assert pkg is not None
    assert many is not None
    assert (pkg.selected, pkg.notes) == (("npm",), "but pin the version")
    assert (many.selected, many.notes) == (("pnpm", "yarn"), "yarn for the docs")


def test_previews_reach_the_page(client: Client, agent: Agent) -> None:
    """Both ways a page learns of an ask carry the options' previews, exactly as given,
    each with the tree the page renders."""
    stream = Stream(client)
    try:
        assert stream.next_event() == ("snapshot", {"asks": []})
        future = agent.ask(previewed_question(), previewed_question("many", multi=True))
        event, card = stream.next_event() or ("", {})
        assert event == "ask"
        # the time left is as of each sending: the rest is the same card
        assert 0 < card.pop("timeLeft") <= 300  # the agent's timeout
        shown = pending(client)[0]
        assert 0 < shown.pop("timeLeft") <= 300
        assert card == shown
        for question in card["questions"]:
            options = {option["label"]: option for option in question["options"]}
            assert options["pnpm"]["preview"] == PREVIEWS["pnpm"]
            assert options["npm"]["preview"] == PREVIEWS["npm"]
            assert "preview" not in options["yarn"]  # absent, not null
            assert "previewTree" not in options["yarn"]
            for label in ("pnpm", "npm"):
                assert options[label]["previewTree"] == tree(PREVIEWS[label])
            assert options["npm"]["previewTree"][0] == {
                "type": "heading",
                "level": 1,
                "children": ["npm"],
            }
        client.post({"askId": card["askId"], "action": "cancel"})
        assert error_of(future).code == ASK_CANCELLED
    finally:
        stream.close()


def test_cancel_and_decline(client: Client, agent: Agent) -> None:
    for action, code in (("cancel", ASK_CANCELLED), ("decline", ASK_DECLINED)):
        future = agent.ask(package_question())
        (card,) = pending(client)
        assert client.post({"askId": card["askId"], "action": action}).status == 200
        assert error_of(future).code == code
        pending(client, 0)


def test_abort_and_timeout_withdraw_the_card_and_a_late_post_is_409(
    client: Client, agent: Agent
) -> None:
    stream = Stream(client)
    try:
        assert stream.next_event() == ("snapshot", {"asks": []})
        controller = AbortController()
        aborted = agent.ask(package_question(), signal=controller.signal)
        event = stream.next_event()
        assert event is not None
        assert event[0] == "ask"
        ask_id = event[1]["askId"]
        controller.abort()
        assert error_of(aborted).code == ASK_ABORTED
        # the code says the agent's side gave up, so a page can say so
        assert stream.next_event() == ("withdraw", {"askId": ask_id, "code": "ASK_ABORTED"})
        late = {"askId": ask_id, "action": "accept", "answers": []}
        assert client.post(late).status == 409

        timed_out = agent.ask(package_question(), timeout=0.3)
        event = stream.next_event()
        assert event is not None
        assert event[0] == "ask"
        assert error_of(timed_out).code == ASK_TIMEOUT
        assert stream.next_event() == (
            "withdraw",
            {"askId": event[1]["askId"], "code": "ASK_TIMEOUT"},
        )
        assert client.post({"askId": event[1]["askId"], "action": "cancel"}).status == 409
    finally:
        stream.close()


def test_an_ask_aborted_and_cancelled_at_once_leaves_no_error_unretrieved(
    client: Client, provider: WebProvider, caplog: pytest.LogCaptureFixture
) -> None:
    # What the manager does when an ask times out: fire the provider's signal, then cancel
    # its task. On 3.9 and 3.10 the server's task then ended with the signal's error while
    # its waiter was already cancelled, and asyncio logged "Task exception was never
    # retrieved" on stderr; the card must leave all the same.
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()
    tasks: list[asyncio.Task[object]] = []

    async def asking(request: AskUserQuestionRequest) -> object:
        task = asyncio.current_task()
        assert task is not None
        tasks.append(task)
        return await provider.ask(request)

    async def end(task: asyncio.Task[object], controller: AbortController) -> None:
        controller.abort()
        task.cancel()

    server_loop = provider._thread.ready.result().loop  # type: ignore[union-attr]
    stream = Stream(client)
    try:
        assert stream.next_event() == ("snapshot", {"asks": []})
        for _ in range(20):
            controller = AbortController()
            request = AskUserQuestionRequest([package_question()], signal=controller.signal)
            asked = asyncio.run_coroutine_threadsafe(asking(request), loop)
            event = stream.next_event()
            assert event is not None
            assert event[0] == "ask"
            # the server's loop is held meanwhile, so what both send it is queued before it
            # goes on, as happens on a busy machine
            held, release = threading.Event(), threading.Event()
            server_loop.call_soon_threadsafe(
                lambda held=held, release=release: (held.set(), release.wait(60))
            )
            assert held.wait(60)
            asyncio.run_coroutine_threadsafe(end(tasks[-1], controller), loop).result(60)
            release.set()
            assert stream.next_event() == (
                "withdraw",
                {"askId": event[1]["askId"], "code": "ASK_ABORTED"},
            )
            wait([asked], 60)
            assert asked.cancelled() or isinstance(asked.exception(), UserInteractionError)
    finally:
        stream.close()
        loop.call_soon_threadsafe(loop.stop)
        runner.join(60)
        loop.close()
    provider.dispose()  # ends the server's loop: none of its tasks is left
    tasks.clear()  # a cancelled task's error leads to the server's task: free both
    gc.collect()
    assert [r.getMessage() for r in caplog.records if "never retrieved" in r.getMessage()] == []


def test_concurrent_asks_are_separate_cards_in_arrival_order(client: Client, agent: Agent) -> None:
    first = agent.ask(package_question("first"))
    pending(client, 1)
    second = agent.ask(package_question("second", multi=True))
    one, two = pending(client, 2)
    assert [q["id"] for q in one["questions"]] == ["first"]  # type: ignore[index]
    assert two["questions"] == [package_question("second", multi=True).to_dict()]
    answer = [{"id": "second", "selected": ["pnpm", "yarn"]}]
    assert client.post({"askId": two["askId"], "action": "accept", "answers": answer}).status == 200
    assert second.result(PROMPTLY).get("second").selected == ("pnpm", "yarn")  # type: ignore[union-attr]
    assert not first.done()
    assert [card["askId"] for card in client.snapshot()] == [one["askId"]]


# -- check 10 and 11: disposal, the printed address ------------------------------------------


def test_dispose_with_a_page_open_releases_the_port_promptly(
    provider: WebProvider, client: Client
) -> None:
    ui = UserInteraction()
    ui.register_provider(provider)
    agent = Agent(ui)
    stream = Stream(client)
    try:
        assert stream.next_event() == ("snapshot", {"asks": []})
        future = agent.ask(package_question())
        assert stream.next_event() is not None
        started = time.perf_counter()
        ui.close()
        assert error_of(future).code == PROVIDER_DISPOSED
        ended = threading.Event()
        reader = threading.Thread(target=lambda: (stream_end(stream), ended.set()))
        reader.start()
        with socket.socket() as probe:  # nothing listens on the port any more
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", client.port))
            probe.listen()
        assert ended.wait(PROMPTLY), "the event stream was not closed"
        assert time.perf_counter() - started < PROMPTLY
        reader.join()
    finally:
        stream.close()
        agent.close()


def stream_end(stream: Stream) -> None:
    while stream.next_event() is not None:
        pass


def test_the_address_goes_to_stderr_never_stdout(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from user_interaction import AskUserQuestionItem, AskUserQuestionRequest\n"
        "from user_interaction import UserInteraction, UserInteractionError\n"
        "import user_interaction_web\n"
        "assert 'aiohttp' not in sys.modules\n"
        "with UserInteraction() as ui:\n"
        "    ui.use('web')\n"
        "    assert 'aiohttp' not in sys.modules\n"
        "    for n in range(3):\n"
        "        try:\n"
        "            ui.ask_sync(AskUserQuestionRequest([AskUserQuestionItem('a', 'A?')]),\n"
        "                        timeout=0.5)\n"
        "        except UserInteractionError as error:\n"
        "            assert error.code == 'ASK_TIMEOUT'\n"
        "        assert 'aiohttp' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    env.pop("USER_INTERACTION_WEB_OPEN", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    lines = child_stderr(done.stderr).splitlines()
    url = re.compile(r"^user-interaction: answer questions at http://127\.0\.0\.1:\d+/#[\w-]{43}$")
    # once, at start (the first ask): no page connected since, so the later asks are
    # in the same stretch without a page
    assert len(lines) == 1, lines
    assert url.match(lines[0]), lines


def test_the_address_is_printed_again_only_without_a_page(
    provider: WebProvider, client: Client, agent: Agent, capfd: pytest.CaptureFixture[str]
) -> None:
    capfd.readouterr()
    stream = Stream(client)
    try:
        assert stream.next_event() is not None
        assert error_of(agent.ask(package_question(), timeout=0.2)).code == ASK_TIMEOUT
    finally:
        stream.close()
    assert capfd.readouterr() == ("", "")  # a page was connected
    printed = f"user-interaction: answer questions at {provider.url}\n"
    seen: list[str] = []

    def asked_without_a_page() -> bool:
        error_of(agent.ask(package_question(), timeout=0.05))
        out, err = capfd.readouterr()
        assert out == ""
        seen.append(err)
        return bool(err)

    wait_until(asked_without_a_page, what="the address printed again")
    assert seen[-1] == printed


def test_open_browser_runs_a_silent_child(monkeypatch: pytest.MonkeyPatch) -> None:
    from user_interaction_web import _server

    calls: list[tuple[list[str], dict[str, object]]] = []
    monkeypatch.setattr(
        _server.subprocess, "Popen", lambda args, **kwargs: calls.append((args, kwargs))
    )
    monkeypatch.setenv("USER_INTERACTION_WEB_OPEN", "1")
    provider = WebProvider()
    try:
        url = provider.start()
    finally:
        provider.dispose()
    assert calls == [
        (
            [sys.executable, "-m", "webbrowser", "-t", url],
            {
                "stdin": subprocess.DEVNULL,
                "stdout": subprocess.DEVNULL,
                "stderr": subprocess.DEVNULL,
                "start_new_session": True,
            },
        )
    ]


# -- the distribution -----------------------------------------------------------------------


def test_listed_and_built_by_its_entry_point() -> None:
    (info,) = [info for info in UserInteraction().providers() if info.name == "web"]
    assert info.value == "user_interaction_web:WebProvider"
    assert info.distribution == "user-interaction-web"
    assert info.version == user_interaction_web.__version__
    with UserInteraction() as ui:
        ui.use("web")
        provider = ui.provider
        assert isinstance(provider, WebProvider)
        assert (provider.serial, provider.priority, provider.available()) == (False, 5, True)
        assert provider.url is None  # nothing started before the first ask
        url = provider.start()
        assert provider.url == url
        assert url.split("#")[1] not in repr(provider)  # the token never shows in a repr


def test_a_disposed_provider_starts_its_server_again_at_the_next_ask(
    provider: WebProvider,
) -> None:
    """dispose() stops the server and nothing else (the asks end through their signals):
    twice is harmless, and an ask after it, through another manager, is shown again."""
    provider.start()
    provider.dispose()
    provider.dispose()
    assert provider.url is None
    with UserInteraction() as ui:
        ui.register_provider(provider)
        agent = Agent(ui)
        try:
            future = agent.ask(package_question())
            client = Client(provider.start())
            (card,) = pending(client)
            assert client.post({"askId": card["askId"], "action": "decline"}).status == 200
            assert error_of(future).code == ASK_DECLINED
        finally:
            agent.close()


def test_answers_keep_their_json_shape(client: Client, agent: Agent) -> None:
    future = agent.ask(package_question(multi=True))
    (card,) = pending(client)
    assert json.loads(json.dumps(card))["questions"][0]["multiSelect"] is True
    answers = [{"id": "pkg", "selected": ["yarn", "pnpm"]}]
    assert (
        client.post({"askId": card["askId"], "action": "accept", "answers": answers}).status == 200
    )
    assert future.result(PROMPTLY).get("pkg").selected == ("yarn", "pnpm")  # type: ignore[union-attr]
