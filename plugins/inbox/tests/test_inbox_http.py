"""The inbox server's HTTP API probed with raw requests: the web provider's guards (token,
Host, Origin, content type, limits, bad bytes), each refusal a 4xx with one log line and
never a traceback; and the first of two racing answers winning."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from typing import Any

from inbox_support import NPM, REQUEST, Inbox
from user_interaction_inbox._address import TOKEN_HEADER


def raw(inbox: Inbox, method: str, path: str, headers: dict[str, Any], body: bytes = b"") -> int:
    """One request with exactly these headers (``Host`` included); the status."""
    base = inbox.address.base.removeprefix("http://")
    host, _, port = base.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_every_guard_refuses_with_a_4xx_and_one_log_line(inbox: Inbox) -> None:
    token = inbox.address.token
    host = inbox.address.base.removeprefix("http://")
    good = {"Host": host, TOKEN_HEADER: token, "Content-Type": "application/json"}
    body = json.dumps({"request": REQUEST, "agent": "raw"}).encode()
    probes = [
        (403, "GET", "/api/asks", {"Host": host}, b""),  # no token
        (403, "GET", "/api/asks", {**good, TOKEN_HEADER: token[:-1] + "x"}, b""),
        (421, "GET", "/api/asks", {**good, "Host": "evil.example"}, b""),
        (421, "GET", "/", {"Host": "evil.example:8765"}, b""),
        (403, "POST", "/api/asks", {**good, "Origin": "http://evil.example"}, body),
        (415, "POST", "/api/asks", {**good, "Content-Type": "text/plain"}, body),
        (400, "POST", "/api/asks", good, b"{not json"),
        (400, "POST", "/api/asks", good, b"[" * 30_000 + b"]" * 30_000),
        (400, "POST", "/api/asks", good, b"\xff\xfe"),
        (400, "POST", "/api/asks", {**good, TOKEN_HEADER: token.encode() + b"\xff"}, body),
        (400, "POST", "/api/asks", good, json.dumps({"request": {}, "agent": "x"}).encode()),
        (400, "POST", "/api/asks", good, json.dumps({"request": REQUEST}).encode()),
        (413, "POST", "/api/asks", good, b'{"agent": "' + b"x" * 70_000 + b'"}'),
        (404, "GET", "/api/asks/no-such-ask?wait=1", good, b""),
        (404, "POST", "/api/asks/no-such-ask/settle", good, b'{"action":"cancel","by":"me"}'),
        (404, "POST", "/api/asks/no-such-ask/withdraw", good, b"{}"),
        (400, "POST", "/api/asks/x/settle", good, b'{"action":"maybe","by":"me"}'),
    ]
    for status, method, path, headers, payload in probes:
        assert raw(inbox, method, path, headers, payload) == status, (status, path, headers)
    # Requests too malformed to parse: aiohttp answers 400 itself.
    port = int(inbox.address.base.rpartition(":")[2])
    malformed = [
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n",
        b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nX: " + b"y" * 20_000 + b"\r\n\r\n",
        b"POST /api/asks HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ]
    for data in malformed:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
            connection.sendall(data)
            assert connection.recv(100).startswith(b"HTTP/1.0 400 "), data[:40]
    assert inbox.pending() == []  # nothing got in
    log = inbox.stop()
    # One line per refusal (under PYTHONDEVMODE asyncio may add lines of its own).
    lines = [line for line in log.splitlines() if re.match(r"\d{3} ", line)]
    assert len(lines) == len(probes) + len(malformed), log
    for (status, method, path, _, _), line in zip(probes, lines):
        assert line.startswith(f"{status} {method} {path.partition('?')[0]}: "), line
    for line in lines[len(probes) :]:
        assert line.startswith("400 (malformed request): "), line
    assert "Traceback" not in log
    assert token not in log


def test_the_listener_is_on_loopback_only(inbox: Inbox) -> None:
    port = int(inbox.address.base.rpartition(":")[2])
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    addresses = {
        info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    }
    for address in addresses - {"127.0.0.1", "127.0.1.1"}:
        try:
            with socket.create_connection((address, port), timeout=2):
                raise AssertionError(f"the inbox answers on {address}")
        except OSError:
            pass


def test_the_first_of_two_racing_answers_wins(inbox: Inbox) -> None:
    posted = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "raw"}).body
    path = f"/api/asks/{posted['id']}/settle"
    start = threading.Barrier(2)
    statuses: dict[str, int] = {}

    def settle(by: str) -> None:
        start.wait()
        statuses[by] = inbox.call(
            "POST", path, {"action": "answer", "answer": NPM, "by": by}
        ).status

    threads = [threading.Thread(target=settle, args=(by,)) for by in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses.values()) == [200, 409]
    winner = next(by for by, status in statuses.items() if status == 200)
    settled = inbox.call("GET", f"/api/asks/{posted['id']}").body
    assert (settled["state"], settled["settledBy"], settled["answer"]) == ("answered", winner, NPM)


def test_an_invalid_answer_is_422_with_its_problems_and_the_ask_stays(inbox: Inbox) -> None:
    posted = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "raw"}).body
    bad = {"answers": [{"id": "pkg", "selected": ["npm", "pnpm"]}]}
    reply = inbox.call(
        "POST", f"/api/asks/{posted['id']}/settle", {"action": "answer", "answer": bad, "by": "me"}
    )
    assert reply.status == 422
    assert reply.body["code"] == "INVALID_ANSWER"
    assert reply.body["problems"][0]["path"] == "answers[0].selected"
    assert [ask["id"] for ask in inbox.pending()] == [posted["id"]]


def test_an_unkeyed_ask_is_withdrawn_by_its_agent_and_a_late_answer_is_409(inbox: Inbox) -> None:
    posted = inbox.call(
        "POST", "/api/asks", {"request": REQUEST, "agent": "raw", "waiter": "w1"}
    ).body
    withdrawn = inbox.call("POST", f"/api/asks/{posted['id']}/withdraw", {"waiter": "w1"}).body
    assert withdrawn["state"] == "withdrawn"
    late = inbox.call("POST", f"/api/asks/{posted['id']}/settle", {"action": "cancel", "by": "me"})
    assert late.status == 409
    assert late.body["state"] == "withdrawn"
    assert late.body["settledBy"] == "agent raw"


def test_a_keyed_ask_stays_when_its_caller_only_leaves(inbox: Inbox) -> None:
    request = {**REQUEST, "key": "k1"}
    posted = inbox.call(
        "POST", "/api/asks", {"request": request, "agent": "raw", "waiter": "w1"}
    ).body
    left = inbox.call(
        "POST", f"/api/asks/{posted['id']}/withdraw", {"waiter": "w1", "leave": True}
    ).body
    assert left["state"] == "pending"  # disposal or a clean exit: kept for the key
    gave_up = inbox.call("POST", f"/api/asks/{posted['id']}/withdraw", {"waiter": "w1"}).body
    assert gave_up["state"] == "withdrawn"  # an abort with nobody else waiting


def test_a_deadline_past_the_calendar_is_none(inbox: Inbox) -> None:
    for time_left in (1e300, 1e12):
        posted = inbox.call(
            "POST", "/api/asks", {"request": REQUEST, "agent": "raw", "timeLeft": time_left}
        ).body
        assert posted["deadline"] is None
    for time_left in (-1, "soon", True, float("nan")):
        reply = inbox.call(
            "POST", "/api/asks", {"request": REQUEST, "agent": "raw", "timeLeft": time_left}
        )
        assert reply.status == 400, time_left
