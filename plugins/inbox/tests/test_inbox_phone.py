"""Answering from a phone, the two supported ways, with real processes: ``inbox serve
--allow-remote`` with TLS, whose Host and Origin checks accept the names the certificate
vouches for (a throwaway CA made by trustme), and a tunnel to the loopback server (a TCP
forwarder on another loopback port, as ``ssh -L`` is); and the page in Chromium at a
phone's size over TLS."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from inbox_support import NPM, REQUEST, Agent, Inbox, cli
from user_interaction_inbox._address import TOKEN_HEADER, Address
from user_interaction_inbox._serve import certificate_names

NAMES = ("inbox.test", "127.0.0.1", "192.0.2.7", "2001:db8::7", "*.wild.test")


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def certificate(authority: trustme.CA, tmp_path: Path) -> tuple[Path, Path]:
    """A server certificate for :data:`NAMES`, signed by ``authority``: its file (the
    chain, the server's first) and its key's."""
    issued = authority.issue_cert(*NAMES)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    issued.private_key_pem.write_to_path(str(key))
    return cert, key


@pytest.fixture
def tls_inbox(state: Path, certificate: tuple[Path, Path]) -> Iterator[Inbox]:
    cert, key = certificate
    server = Inbox(
        state,
        "--allow-remote",
        "--host",
        "127.0.0.1",
        "--certfile",
        str(cert),
        "--keyfile",
        str(key),
    )
    yield server
    server.stop()


def port_of(inbox: Inbox) -> int:
    return int(inbox.address.base.rsplit(":", 1)[1])


def exchange(
    port: int,
    host: str,
    method: str,
    path: str,
    *,
    context: ssl.SSLContext | None = None,
    server_name: str = "inbox.test",
    headers: dict[str, str] | None = None,
    body: object = None,
) -> tuple[int, dict[str, Any]]:
    """One HTTP/1.1 request to the server on ``127.0.0.1:port`` with ``Host: host``: over
    TLS verifying the certificate for ``server_name`` when ``context`` is given (the
    name a phone asked its DNS for); the status and the JSON body."""
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        stream = raw if context is None else context.wrap_socket(raw, server_hostname=server_name)
        try:
            stream.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + payload)
            reply = b""
            while chunk := stream.recv(65536):
                reply += chunk
        finally:
            if stream is not raw:
                stream.close()
    head, _, content = reply.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    try:
        data = json.loads(content) if content else {}
    except ValueError:
        data = {}
    return status, data


# -- TLS: the certificate's names ---------------------------------------------------------


def test_the_names_of_a_certificate_are_read_as_host_headers_spell_them(
    certificate: tuple[Path, Path],
) -> None:
    assert certificate_names(str(certificate[0])) == {
        "inbox.test",
        "127.0.0.1",
        "192.0.2.7",
        "[2001:db8::7]",
    }  # the wildcard names no one host: left out


def test_the_host_and_origin_checks_accept_the_certificates_names(
    tls_inbox: Inbox, authority: trustme.CA
) -> None:
    context = ssl.create_default_context()
    authority.configure_trust(context)
    port = port_of(tls_inbox)
    token = {TOKEN_HEADER: tls_inbox.address.token}

    def get(host: str) -> int:
        return exchange(port, host, "GET", "/api/inbox", context=context, headers=token)[0]

    for name in ("inbox.test", "INBOX.test", "192.0.2.7", "[2001:db8::7]", "127.0.0.1"):
        assert get(f"{name}:{port}") == 200, name
    for name in ("evil.example", "a.wild.test", "inbox.test.evil.example", "192.0.2.8"):
        assert get(f"{name}:{port}") == 421, name
    # The page's own origin may post; another site's may not.
    status, ask = exchange(
        port,
        f"inbox.test:{port}",
        "POST",
        "/api/asks",
        context=context,
        headers={**token, "Origin": f"https://inbox.test:{port}"},
        body={"request": REQUEST, "agent": "phone test"},
    )
    assert status == 200, ask
    status, _ = exchange(
        port,
        f"inbox.test:{port}",
        "POST",
        f"/api/asks/{ask['id']}/settle",
        context=context,
        headers={**token, "Origin": "https://evil.example"},
        body={"action": "answer", "answer": NPM, "by": "phone"},
    )
    assert status == 403
    status, settled = exchange(
        port,
        f"inbox.test:{port}",
        "POST",
        f"/api/asks/{ask['id']}/settle",
        context=context,
        headers={**token, "Origin": f"https://inbox.test:{port}"},
        body={"action": "answer", "answer": NPM, "by": "phone"},
    )
    assert (status, settled["state"], settled["answer"]) == (200, "answered", NPM)
    # Without the token a name the certificate vouches for gets nothing.
    assert exchange(port, f"inbox.test:{port}", "GET", "/api/asks", context=context)[0] == 403
    # And a client that does not trust the authority does not get in at all.
    with pytest.raises(ssl.SSLCertVerificationError):
        exchange(port, f"inbox.test:{port}", "GET", "/", context=ssl.create_default_context())


# -- a tunnel to the loopback server ------------------------------------------------------


class Forwarder:
    """A plain TCP forwarder, as a tunnel's near end is (``ssh -L``, or any other): it
    listens on another loopback port and copies bytes both ways to ``127.0.0.1:target``,
    on an event loop of its own in a thread."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._forward, "127.0.0.1", 0)
        )
        self.port: int = self._server.sockets[0].getsockname()[1]
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        far_reader, far_writer = await asyncio.open_connection("127.0.0.1", self.target)

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                sink.close()

        await asyncio.gather(copy(reader, far_writer), copy(far_reader, writer))

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shut(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    async def _shut(self) -> None:
        self._server.close()
        others = asyncio.all_tasks() - {asyncio.current_task()}
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await self._server.wait_closed()


@pytest.fixture
def tunnel(inbox: Inbox) -> Iterator[Forwarder]:
    forwarder = Forwarder(port_of(inbox))
    yield forwarder
    forwarder.close()


def test_the_page_and_the_api_work_through_a_tunnel_to_the_loopback_server(
    state: Path, inbox: Inbox, tunnel: Forwarder
) -> None:
    """Any tunnel that forwards to 127.0.0.1 works: the Host check ignores the port (the
    tunnel's near end is another one), and the page's Origin is that same address."""
    near = f"http://127.0.0.1:{tunnel.port}/#{inbox.address.token}"
    token = {TOKEN_HEADER: inbox.address.token}
    for host in (f"127.0.0.1:{tunnel.port}", f"localhost:{tunnel.port}"):
        status, _ = exchange(tunnel.port, host, "GET", "/", headers=token)
        assert status == 200, host
        status, ask = exchange(
            tunnel.port,
            host,
            "POST",
            "/api/asks",
            headers={**token, "Origin": f"http://{host}"},
            body={"request": REQUEST, "agent": "through a tunnel"},
        )
        assert status == 200, ask
        status, settled = exchange(
            tunnel.port,
            host,
            "POST",
            f"/api/asks/{ask['id']}/settle",
            headers={**token, "Origin": f"http://{host}"},
            body={"action": "cancel", "by": "phone"},
        )
        assert (status, settled["state"]) == (200, "cancelled")
    # An agent and the command line that know only the tunnel's address.
    agent = Agent(state, USER_INTERACTION_INBOX=near)
    through = Address.parse(near)
    listed = through.request("GET", "/api/asks").body
    while not listed["asks"]:  # held until the list changes
        listed = through.request("GET", f"/api/asks?after={listed['cursor']}&wait=30").body
    (ask,) = listed["asks"]
    answer = json.dumps(NPM)
    answered = cli(
        state, "inbox", "answer", ask["id"], "--answer", answer, USER_INTERACTION_INBOX=near
    )
    assert answered.returncode == 0, answered.stderr
    assert agent.outcome() == {"answer": NPM}
    assert tunnel.connections >= 5


# -- the page on a phone ------------------------------------------------------------------


@pytest.mark.browser
def test_the_page_over_tls_at_a_phones_size(
    tls_inbox: Inbox, authority: trustme.CA, tmp_path: Path
) -> None:
    """Chromium at 390x844 (a phone's screen, in CSS pixels) opens the page by the
    certificate's name over TLS, signs in once with the tokenised address (a Secure
    session cookie), then follows a notification's link without the token to the ask,
    answers it by touch, and nothing on the page is wider than the screen. A screenshot is
    kept for a human to look at (``USER_INTERACTION_WEB_SCREENSHOTS``, else the test's
    temporary directory)."""
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
    chromium = Path(os.environ.get("USER_INTERACTION_WEB_CHROMIUM", "/usr/bin/chromium"))
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        if in_ci:
            pytest.fail(f"the browser tests need Playwright in CI: {error}")
        pytest.skip("Playwright is not installed (pip install playwright)")
    if not chromium.exists():
        if in_ci:
            pytest.fail(f"the browser tests need {chromium} in CI (apt-get install chromium)")
        pytest.skip(f"{chromium} is missing (apt-get install chromium)")
    from playwright.sync_api import expect

    port = port_of(tls_inbox)
    trusted = ssl.create_default_context()
    authority.configure_trust(trusted)
    token = {TOKEN_HEADER: tls_inbox.address.token}
    shots = Path(os.environ.get("USER_INTERACTION_WEB_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium),
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--host-resolver-rules=MAP inbox.test 127.0.0.1",  # the phone's DNS
            ],
        )
        try:
            context = browser.new_context(
                viewport={"width": 390, "height": 844},
                device_scale_factor=3,
                has_touch=True,
                ignore_https_errors=True,  # Chromium here has no store to trust the CA in
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            base = f"https://inbox.test:{port}"
            response = page.goto(f"{base}/#{tls_inbox.address.token}")  # signed in once
            assert response is not None
            assert response.status == 200
            expect(page.locator("#status")).to_have_text("Connected")
            (cookie,) = context.cookies()
            assert (cookie["httpOnly"], cookie["secure"]) == (True, True)  # TLS: Secure
            # An ask arrives; its notification's link (no token) opens it on the phone.
            status, ask = exchange(
                port,
                f"inbox.test:{port}",
                "POST",
                "/api/asks",
                context=trusted,
                headers=token,
                body={"request": REQUEST, "agent": "deploy bot"},
            )
            assert status == 200, ask
            page.goto(f"{base}/asks/{ask['id']}")
            expect(page.locator("#status")).to_have_text("Connected")
            card = page.locator(".card")
            expect(card).to_have_count(1)
            expect(card.get_by_role("radio", name="pnpm", exact=True)).to_be_visible()
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page is {width} px wide on a 390 px screen"
            page.screenshot(path=str(shots / "inbox-phone-tls.png"), full_page=True)
            card.get_by_role("radio", name="pnpm", exact=True).tap()
            card.get_by_role("button", name="Submit").tap()
            expect(page.locator(".receipt")).to_contain_text("pnpm")
            status, settled = exchange(
                port,
                f"inbox.test:{port}",
                "GET",
                f"/api/asks/{ask['id']}",
                context=trusted,
                headers=token,
            )
            assert (status, settled["state"]) == (200, "answered")
            assert settled["answer"]["answers"][0]["selected"] == ["pnpm"]
            assert (shots / "inbox-phone-tls.png").stat().st_size > 0
            assert errors == []
            context.close()
        finally:
            browser.close()


def test_an_http_tunnel_keeping_the_public_name_is_let_in_by_public_url(state: Path) -> None:
    """An HTTP-level tunnel or balancer (cloudflared, ngrok, a load balancer) forwards the
    human's Host header, the public name: ``--public-url`` names it, so the Host and
    Origin checks accept it, and nothing else new."""
    inbox = Inbox(state, "--public-url", "https://Inbox.Example.com/team/")
    try:
        port = port_of(inbox)
        token = {TOKEN_HEADER: inbox.address.token}
        for host in ("inbox.example.com", "inbox.example.com:443"):
            status, _ = exchange(port, host, "GET", "/api/inbox", headers=token)
            assert status == 200, host
        status, _ = exchange(
            port,
            "inbox.example.com",
            "POST",
            "/api/asks",
            headers={**token, "Origin": "https://inbox.example.com"},
            body={"request": REQUEST, "agent": "behind a balancer"},
        )
        assert status == 200
        for host in ("example.com", "evil.example", "inbox.example.com.evil.example"):
            assert exchange(port, host, "GET", "/api/inbox", headers=token)[0] == 421, host
    finally:
        inbox.stop()
