"""The inbox page's server side probed with raw HTTP: the page and its files served without
credentials (they hold no model text), the session cookie the tokenised address sets, and
the event stream's guards (no credential, a wrong cookie, a foreign Host or Origin) and
events (a snapshot, an arrival, a departure)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from inbox_support import NPM, REQUEST, Inbox
from user_interaction_inbox._address import TOKEN_HEADER
from user_interaction_inbox._server import SESSION_COOKIE


@contextmanager
def connection(inbox: Inbox) -> Iterator[http.client.HTTPConnection]:
    host, _, port = inbox.address.base.removeprefix("http://").rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        yield connection
    finally:
        connection.close()


def request(
    inbox: Inbox, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request with exactly these headers besides Host; status, headers and body."""
    with connection(inbox) as http_connection:
        http_connection.request(method, path, body=body or None, headers=headers)
        response = http_connection.getresponse()
        return response.status, response.headers, response.read()


def session_cookie(inbox: Inbox) -> str:
    """What the page does with the token from its address: ``POST /api/session``."""
    status, headers, _ = request(
        inbox,
        "POST",
        "/api/session",
        {TOKEN_HEADER: inbox.address.token, "Content-Type": "application/json"},
        b"{}",
    )
    assert status == 200
    (cookie,) = headers.get_all("Set-Cookie") or []
    return cookie


class Stream:
    """An open ``GET /api/events``: its events read one by one."""

    def __init__(self, inbox: Inbox, headers: dict[str, str]) -> None:
        host, _, port = inbox.address.base.removeprefix("http://").rpartition(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)
        self.connection.request("GET", "/api/events", headers=headers)
        self.response = self.connection.getresponse()

    def next(self) -> tuple[str, Any]:
        """The next event (comments skipped): its name and data."""
        name, data = "", ""
        while True:
            line = self.response.readline().decode()
            assert line, "the stream ended"
            if line == "\n" and name:
                return name, json.loads(data)
            if line.startswith("event: "):
                name = line[7:].strip()
            elif line.startswith("data: "):
                data = line[6:].strip()

    def close(self) -> None:
        self.connection.close()


def test_the_page_needs_no_credential_and_holds_no_model_text(inbox: Inbox) -> None:
    inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "Zebulon <b>A</b>"})
    for path in ("/", "/asks/anything", "/cards.js", "/inbox.js", "/app.css"):
        status, headers, body = request(inbox, "GET", path, {})
        assert status == 200, path
        assert headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert b"Zebulon" not in body, path
        assert b"Which package manager" not in body
    status, _, page = request(inbox, "GET", "/asks/x", {})
    assert b'src="/cards.js"' in page  # the web provider's cards, from its distribution
    assert request(inbox, "GET", "/", {"Host": "evil.example"})[0] == 421


def test_the_tokenised_address_sets_a_strict_http_only_cookie(inbox: Inbox) -> None:
    cookie = session_cookie(inbox)
    name, _, rest = cookie.partition("=")
    assert name == SESSION_COOKIE
    attributes = {part.strip().split("=")[0].lower() for part in rest.split(";")[1:]}
    assert {"httponly", "samesite", "path", "max-age"} <= attributes
    assert "SameSite=Strict" in cookie
    assert "secure" not in attributes  # plain HTTP on loopback; over TLS it is Secure
    value = rest.split(";")[0]
    assert inbox.address.token not in value
    # refused without the token, even with the cookie
    status, headers, _ = request(
        inbox,
        "POST",
        "/api/session",
        {
            "Cookie": f"{SESSION_COOKIE}={value}",
            "Content-Type": "application/json",
            "Origin": inbox.address.base,
        },
        b"{}",
    )
    assert status == 403
    assert headers.get("Set-Cookie") is None
    # the cookie stands for the token on the API: lists, and answers from the page's origin
    asked = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "agent A"}).body
    with_cookie = {"Cookie": f"{SESSION_COOKIE}={value}"}
    status, _, body = request(inbox, "GET", "/api/asks", with_cookie)
    assert status == 200
    assert [ask["id"] for ask in json.loads(body)["asks"]] == [asked["id"]]
    settle = json.dumps({"action": "answer", "answer": NPM, "by": "page"}).encode()
    path = f"/api/asks/{asked['id']}/settle"
    json_type = {"Content-Type": "application/json"}
    # a change made with the cookie must come from the page: an Origin, and ours
    assert request(inbox, "POST", path, {**with_cookie, **json_type}, settle)[0] == 403
    foreign = {**with_cookie, **json_type, "Origin": "http://evil.example"}
    assert request(inbox, "POST", path, foreign, settle)[0] == 403
    ours = {**with_cookie, **json_type, "Origin": inbox.address.base}
    assert request(inbox, "POST", path, ours, settle)[0] == 200
    # a wrong cookie is no credential; the refusal says how to get in
    status, _, body = request(inbox, "GET", "/api/asks", {"Cookie": f"{SESSION_COOKIE}=x{value}"})
    assert status == 403
    assert "inbox open" in json.loads(body)["error"]


def test_the_event_streams_guards(inbox: Inbox) -> None:
    value = session_cookie(inbox).partition("=")[2].split(";")[0]
    refused = [
        (403, {}),
        (403, {"Cookie": f"{SESSION_COOKIE}=nope"}),
        (403, {TOKEN_HEADER: "nope"}),
        (421, {"Cookie": f"{SESSION_COOKIE}={value}", "Host": "evil.example"}),
        (403, {"Cookie": f"{SESSION_COOKIE}={value}", "Origin": "http://evil.example"}),
    ]
    for status, headers in refused:
        got, answer_headers, _ = request(inbox, "GET", "/api/events", headers)
        assert got == status, headers
        assert answer_headers["Content-Type"].startswith("application/json")
    log = inbox.stop()
    lines = [line for line in log.splitlines() if line.startswith(("403 ", "421 "))]
    assert len(lines) == len(refused), log
    assert all("GET /api/events: " in line for line in lines), lines


def test_the_event_stream_says_what_arrives_and_what_leaves(inbox: Inbox) -> None:
    first = inbox.call(
        "POST", "/api/asks", {"request": REQUEST, "agent": "agent A", "timeLeft": 600}
    )
    value = session_cookie(inbox).partition("=")[2].split(";")[0]
    by_cookie = Stream(inbox, {"Cookie": f"{SESSION_COOKIE}={value}"})
    by_token = Stream(inbox, {TOKEN_HEADER: inbox.address.token})
    try:
        assert by_cookie.response.status == 200
        assert by_cookie.response.headers["Content-Type"] == "text/event-stream"
        for stream in (by_cookie, by_token):
            name, data = stream.next()
            assert name == "snapshot"
            (card,) = data["asks"]
            assert card["askId"] == first.body["id"]
            assert card["agent"] == "agent A"
            assert card["questions"] == REQUEST["questions"]
            assert 0 < card["timeLeft"] <= 600
            assert card["age"] >= 0
        second = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "agent B"})
        for stream in (by_cookie, by_token):
            name, data = stream.next()
            assert (name, data["askId"], data["agent"]) == ("ask", second.body["id"], "agent B")
            assert "timeLeft" not in data
        inbox.call(
            "POST",
            f"/api/asks/{first.body['id']}/settle",
            {"action": "answer", "answer": NPM, "by": "me"},
        )
        for stream in (by_cookie, by_token):
            assert stream.next() == (
                "settled",
                {"askId": first.body["id"], "state": "answered", "settledBy": "me", "code": None},
            )
        inbox.call("POST", f"/api/asks/{second.body['id']}/withdraw", {})
        for stream in (by_cookie, by_token):
            name, data = stream.next()
            assert (name, data["state"], data["code"]) == ("settled", "withdrawn", "ASK_ABORTED")
    finally:
        by_cookie.close()
        by_token.close()
