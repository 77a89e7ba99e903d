"""The inbox end to end with real processes: ``inbox serve`` on loopback, agents asking
through the ``inbox`` provider, the command line answering, and SIGKILLs of agents and of
the server in the middle of an ask."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import ssl
import stat
import subprocess
from pathlib import Path

import pytest
from inbox_support import NPM, QUESTION, REQUEST, Agent, Inbox, cli, wait_until
from user_interaction_inbox._address import TOKEN_HEADER

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    INVALID_REQUEST,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- serve: its files -------------------------------------------------------------------


def test_serve_writes_private_files_and_removes_its_address_on_sigterm(state: Path) -> None:
    server = Inbox(state)
    assert mode(state) == 0o700
    for name in ("inbox.json", "inbox.token", "inbox.sqlite3"):
        assert mode(state / name) == 0o600, name
    token = (state / "inbox.token").read_text().strip()
    assert server.record["token"] == token
    assert server.record["url"].startswith("http://127.0.0.1:")
    assert server.reachable()
    opened = cli(state, "inbox", "open")
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout == f"{server.address.base}/#{token}\n"
    log = server.stop(signal.SIGTERM)
    assert server.process.returncode == 0, log
    assert not (state / "inbox.json").exists()
    assert "Traceback" not in log

    again = Inbox(state)  # the token survives the restart...
    assert again.record["token"] == token
    again.stop(signal.SIGINT)
    assert again.process.returncode == 0
    assert not (state / "inbox.json").exists()
    renewed = Inbox(state, "--new-token")  # ...unless replaced
    assert renewed.record["token"] != token
    assert (state / "inbox.token").read_text().strip() == renewed.record["token"]
    renewed.stop()


def test_open_browser_opens_the_tokenised_address(state: Path, tmp_path: Path) -> None:
    server = Inbox(state)
    opened_with = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened_with}\n')
    browser.chmod(0o700)
    opened = cli(state, "inbox", "open", "--browser", BROWSER=f"{browser} %s")
    assert opened.returncode == 0, opened.stderr
    page = f"{server.address.base}/#{server.record['token']}"
    assert opened.stdout == f"{page}\n"
    assert opened_with.read_text() == page  # the browser got the address with its token
    # no browser at all (no BROWSER, no display, nothing on PATH): said, not silently ignored
    alone = cli(state, "inbox", "open", "--browser", BROWSER="", DISPLAY="", PATH=str(tmp_path))
    assert alone.returncode == 1
    assert alone.stdout == f"{page}\n"
    assert "found no browser to open" in alone.stderr
    server.stop()


def test_without_a_server_the_commands_say_so(state: Path) -> None:
    for args in (("inbox", "list"), ("inbox", "open"), ("inbox", "answer", "x", "--cancel")):
        result = cli(state, *args)
        assert result.returncode == 1, args
        assert "no inbox is running here" in result.stderr
        assert "Traceback" not in result.stderr


def test_remote_hosts_need_allow_remote_and_tls(state: Path) -> None:
    result = cli(state, "inbox", "serve", "--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 2
    assert "--allow-remote" in result.stderr
    result = cli(state, "inbox", "serve", "--host", "0.0.0.0", "--port", "0", "--allow-remote")
    assert result.returncode == 2
    assert "needs TLS" in result.stderr


def test_a_newer_store_is_refused_clearly(state: Path) -> None:
    import sqlite3
    from contextlib import closing

    from user_interaction_inbox._store import SCHEMA_VERSION, SqliteStore

    path = state / "inbox.sqlite3"
    SqliteStore(path).close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 5,))
    db.close()
    result = cli(state, "inbox", "serve", "--port", "0")
    assert result.returncode == 1
    assert f"schema version {SCHEMA_VERSION + 5}, newer than" in result.stderr
    assert "Traceback" not in result.stderr


# -- asking and answering -----------------------------------------------------------------


def test_an_agent_is_answered_through_the_command_line(state: Path, inbox: Inbox) -> None:
    agent = Agent(state)
    (ask,) = inbox.wait_for_pending(1)
    listed = cli(state, "inbox", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (shown,) = json.loads(listed.stdout)["asks"]
    assert set(shown) == {"id", "key", "agent", "created", "age", "deadline", "questions"}
    assert shown["id"] == ask["id"]
    assert shown["agent"] == "test agent"
    assert shown["key"] is None
    assert shown["questions"] == [QUESTION]
    assert shown["deadline"] is not None  # the agent's 120 s timeout travelled
    text = cli(state, "inbox", "list")
    assert ask["id"] in text.stdout
    assert "Which package manager?" in text.stdout

    wrong = json.dumps({"answers": [{"id": "pkg", "selected": ["yarn"]}]})
    refused = cli(state, "inbox", "answer", ask["id"], "--answer", wrong)
    assert refused.returncode == 7, refused.stderr
    assert "INVALID_ANSWER" in refused.stderr
    assert "'yarn' was not offered" in refused.stderr
    assert [a["id"] for a in inbox.pending()] == [ask["id"]]  # still pending

    answered = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM), "--by", "ann")
    assert answered.returncode == 0, answered.stderr
    assert agent.outcome() == {"answer": NPM}
    late = cli(state, "inbox", "answer", ask["id"], "--cancel")
    assert late.returncode == 1
    assert f"ask {ask['id']} is already answered by ann at 20" in late.stderr
    assert inbox.pending() == []


def test_cancel_and_decline_reach_the_agent(state: Path, inbox: Inbox) -> None:
    for flag, code in (("--cancel", ASK_CANCELLED), ("--decline", ASK_DECLINED)):
        agent = Agent(state)
        (ask,) = inbox.wait_for_pending(1)
        result = cli(state, "inbox", "answer", ask["id"], flag)
        assert result.returncode == 0, result.stderr
        assert agent.outcome()["error"] == code


def test_answer_asks_the_human_here_through_another_provider(state: Path, inbox: Inbox) -> None:
    agent = Agent(state)
    (ask,) = inbox.wait_for_pending(1)
    # stdio is the best provider left for a process whose stdin is a pipe (inbox and any
    # are never picked to answer the inbox's own asks).
    result = cli(state, "inbox", "answer", ask["id"], stdin="2\n")
    assert result.returncode == 0, result.stderr
    assert "Which package manager?" in result.stdout
    assert agent.outcome() == {"answer": {"answers": [{"id": "pkg", "selected": ["pnpm"]}]}}
    # The human's cancel there is the agent's ASK_CANCELLED (stdio: end of input aborts).
    agent = Agent(state)
    (ask,) = inbox.wait_for_pending(1)
    result = cli(state, "inbox", "answer", ask["id"], "--provider", "stdio", stdin="")
    assert result.returncode == 4, result.stderr
    assert [a["id"] for a in inbox.pending()] == [ask["id"]]  # an abort here settles nothing
    cli(state, "inbox", "answer", ask["id"], "--decline")
    assert agent.outcome()["error"] == ASK_DECLINED


def test_the_provider_is_chosen_when_an_inbox_answers(state: Path) -> None:
    from user_interaction_inbox import InboxProvider

    assert not InboxProvider.available()
    server = Inbox(state)
    try:
        assert InboxProvider.available()
        agent = Agent(state, provider=None)  # chosen by priority: no terminal here
        (ask,) = server.wait_for_pending(1)
        cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
        assert agent.outcome() == {"answer": NPM}
    finally:
        server.stop()
    assert not InboxProvider.available()


def test_the_address_from_the_environment(state: Path, inbox: Inbox, tmp_path: Path) -> None:
    """USER_INTERACTION_INBOX (as inbox open prints it) wins over inbox.json."""
    elsewhere = tmp_path / "elsewhere"
    agent = Agent(elsewhere, USER_INTERACTION_INBOX=inbox.address.page)
    (ask,) = inbox.wait_for_pending(1)
    cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    assert agent.outcome() == {"answer": NPM}


# -- timeouts, withdrawal, keys --------------------------------------------------------


def test_a_timeout_withdraws_the_ask(state: Path, inbox: Inbox) -> None:
    agent = Agent(state, timeout=1.0)
    assert agent.outcome()["error"] == ASK_TIMEOUT
    assert inbox.pending() == []


def test_the_deadline_expires_an_ask_in_the_server(inbox: Inbox) -> None:
    posted = inbox.call(
        "POST", "/api/asks", {"request": REQUEST, "agent": "raw", "timeLeft": 0.2}
    ).body
    settled = inbox.call("GET", f"/api/asks/{posted['id']}?wait=30").body
    assert settled["state"] == "expired"
    assert settled["error"]["code"] == ASK_TIMEOUT


def test_keyed_agents_join_one_ask_and_both_get_its_answer(state: Path, inbox: Inbox) -> None:
    first = Agent(state, key="deploy:42")
    inbox.wait_for_pending(1)
    second = Agent(state, key="deploy:42", timeout=300.0)
    wait_until(
        lambda: inbox.pending()[0]["deadline"] > inbox.pending()[0]["created"] + 200,
        "the later deadline",
    )
    (ask,) = inbox.pending()
    assert ask["key"] == "deploy:42"
    cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    assert first.outcome() == {"answer": NPM}
    assert second.outcome() == {"answer": NPM}
    other = {"questions": [{"id": "x", "question": "Something else?"}]}
    third = Agent(state, key="deploy:42", request=other)
    outcome = third.outcome()
    assert outcome["error"] == INVALID_REQUEST
    assert "deploy:42" in outcome["message"]


def test_one_joined_callers_timeout_ends_only_its_own_wait(state: Path, inbox: Inbox) -> None:
    patient = Agent(state, key="k")
    inbox.wait_for_pending(1)
    hasty = Agent(state, key="k", timeout=1.0)
    assert hasty.outcome()["error"] == ASK_TIMEOUT
    (ask,) = inbox.pending()  # the other caller still waits on it
    cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    assert patient.outcome() == {"answer": NPM}


def test_a_keyed_timeout_with_nobody_else_withdraws_and_releases_the_key(
    state: Path, inbox: Inbox
) -> None:
    assert Agent(state, key="k", timeout=1.0).outcome()["error"] == ASK_TIMEOUT
    assert inbox.pending() == []
    again = Agent(state, key="k")  # asking again asks again
    (ask,) = inbox.wait_for_pending(1)
    cli(state, "inbox", "answer", ask["id"], "--cancel")
    assert again.outcome()["error"] == ASK_CANCELLED


# -- SIGKILL -----------------------------------------------------------------------------


def test_a_killed_keyed_agent_collects_its_answer_when_restarted(state: Path, inbox: Inbox) -> None:
    agent = Agent(state, key="build-7")
    (ask,) = inbox.wait_for_pending(1)
    agent.kill()
    assert [a["id"] for a in inbox.pending()] == [ask["id"]]  # a keyed ask stays pending
    cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    restarted = Agent(state, key="build-7")
    assert restarted.outcome() == {"answer": NPM}


def test_an_answer_survives_a_server_killed_right_after_it(state: Path) -> None:
    server = Inbox(state)
    agent = Agent(state)
    (ask,) = server.wait_for_pending(1)
    answered = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    assert answered.returncode == 0, answered.stderr
    server.kill()
    restarted = Inbox(state)  # another free port: the agent reads inbox.json again
    try:
        assert agent.outcome() == {"answer": NPM}
    finally:
        restarted.stop()


def test_a_pending_ask_survives_a_killed_server_and_its_agent_waits_on(state: Path) -> None:
    server = Inbox(state)
    agent = Agent(state)
    (ask,) = server.wait_for_pending(1)
    server.kill()
    restarted = Inbox(state)
    try:
        assert [a["id"] for a in restarted.pending()] == [ask["id"]]
        cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
        assert agent.outcome() == {"answer": NPM}
        # its wait picked up again on the same ask: no second ask was left behind
        assert restarted.pending() == []
    finally:
        restarted.stop()


# -- TLS ---------------------------------------------------------------------------------


def test_tls_end_to_end_with_the_certificate_trusted(state: Path, tmp_path: Path) -> None:
    """--certfile/--keyfile serve https; agents and the command line verify the server's
    certificate (here trusted through SSL_CERT_FILE, as a private CA would be)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    server = Inbox(state, "--certfile", str(cert), "--keyfile", str(key))
    try:
        assert server.record["url"].startswith("https://127.0.0.1:")
        trusted = {"SSL_CERT_FILE": str(cert)}
        agent = Agent(state, **trusted)
        wait_until(
            lambda: json.loads(cli(state, "inbox", "list", "--json", **trusted).stdout)["asks"],
            "the ask over TLS",
        )
        (ask,) = json.loads(cli(state, "inbox", "list", "--json", **trusted).stdout)["asks"]
        answered = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM), **trusted)
        assert answered.returncode == 0, answered.stderr
        assert agent.outcome() == {"answer": NPM}
        untrusted = cli(state, "inbox", "list")
        assert untrusted.returncode == 1
        assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
        # over TLS the page's session cookie is Secure too (never sent over plain HTTP)
        host, _, port = server.address.base.removeprefix("https://").rpartition(":")
        connection = http.client.HTTPSConnection(
            host, int(port), timeout=30, context=ssl.create_default_context(cafile=str(cert))
        )
        try:
            connection.request(
                "POST",
                "/api/session",
                body=b"{}",
                headers={TOKEN_HEADER: server.address.token, "Content-Type": "application/json"},
            )
            response = connection.getresponse()
            response.read()
        finally:
            connection.close()
        assert response.status == 200
        cookie = response.headers["Set-Cookie"]
        assert re.search(r";\s*Secure(;|$)", cookie), cookie
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
    finally:
        server.stop()


def test_list_shows_model_text_with_control_sequences_neutralised(
    state: Path, inbox: Inbox
) -> None:
    hostile = {
        "questions": [
            {"id": "q", "question": "Clear\x1b[2J the screen?", "header": "Hi\x07", "options": []}
        ]
    }
    reply = inbox.call("POST", "/api/asks", {"request": hostile, "agent": "bot\x1b]0;x\x07"})
    assert reply.status == 200, reply
    listed = cli(state, "inbox", "list")
    assert listed.returncode == 0, listed.stderr
    assert "\x1b" not in listed.stdout
    assert "\x07" not in listed.stdout
    assert "Clear" in listed.stdout
    as_json = json.loads(cli(state, "inbox", "list", "--json").stdout)["asks"][0]
    assert as_json["questions"][0]["question"] == "Clear\x1b[2J the screen?"  # data, as sent
