"""``user-interaction inbox serve``: open the store, keep the token, listen, write
``inbox.json`` for the agents and the command line of this machine, and remove it again on
SIGINT or SIGTERM. Only this command imports aiohttp (the others stay quick to start)."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import secrets
import signal
import ssl
import sys
import urllib.parse
from pathlib import Path

from user_interaction_web.guards import LOOPBACK_NAMES

from user_interaction import state_dir
from user_interaction.terminal import visible

from ._address import address_file, token_file
from ._notify import NOTIFY_ENV, Notifier, NotifyError, NotifyUnavailable
from ._server import InboxServer  # aiohttp, imported here: before the loop runs
from ._store import Store, StoreError, default_store_url, open_store, shown_url

__all__ = ["serve", "write_private"]

_PROG = "user-interaction inbox serve"


def _say(text: str) -> None:
    sys.stderr.write(f"{_PROG}: {visible(' '.join(text.split()))}\n")
    sys.stderr.flush()


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a 0600 temporary file, then ``os.replace``):
    readers never see half a file, and nobody else can read it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _token(renew: bool) -> str:
    """The token kept in ``inbox.token`` (made on first use, or anew with ``renew``): it
    survives restarts, so waiting agents reconnect with the token they have."""
    path = token_file()
    if not renew:
        try:
            token = path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            token = ""
        if token:
            return token
    token = secrets.token_urlsafe(32)
    write_private(path, token + "\n")
    return token


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """``host`` as a Host header names it: lower case, an IPv6 address in brackets."""
    host = host.lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def certificate_names(certfile: str) -> set[str]:
    """The DNS names and IP addresses in the subjectAltName of the certificate in
    ``certfile`` (the first one: the server's own), as Host headers spell them. Wildcard
    names (``*.example.com``) are left out: they name no one host."""
    from cryptography import x509

    certificate = x509.load_pem_x509_certificate(Path(certfile).read_bytes())
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        return set()
    found = {
        _host_name(name)
        for name in names.value.get_values_for_type(x509.DNSName)
        if not name.startswith("*")
    }
    found.update(_host_name(str(ip)) for ip in names.value.get_values_for_type(x509.IPAddress))
    return found


def _public_url(url: str) -> str:
    """``--public-url``, checked: ``http(s)://HOST[:PORT][/PATH]``, without a trailing
    slash; :class:`ValueError` saying what is wrong."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--public-url {url!r}: expected http(s)://HOST[:PORT][/PATH]")
    if parts.query or parts.fragment:
        raise ValueError(f"--public-url {url!r}: no query or fragment, please")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _notifier(args: argparse.Namespace) -> Notifier | None:
    """The services of ``--notify`` (else of the environment variable), or ``None``."""
    urls = args.notify if args.notify else os.environ.get(NOTIFY_ENV, "").split()
    return Notifier(urls) if urls else None


def serve(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM; the exit status."""
    host: str = args.host
    if not _is_loopback(host):
        if not args.allow_remote:
            _say(f"--host {host} is not loopback: add --allow-remote (with --certfile/--keyfile)")
            return 2
        if not (args.certfile and args.keyfile):
            _say("--allow-remote needs TLS: --certfile and --keyfile")
            return 2
    if bool(args.certfile) != bool(args.keyfile):
        _say("--certfile and --keyfile go together")
        return 2
    if not 0 <= args.port <= 65535:
        _say(f"--port {args.port}: expected 0 to 65535")
        return 2
    hosts = set(LOOPBACK_NAMES)
    if not _is_loopback(host):
        hosts.add(_host_name(host))
    public_url = None
    if args.public_url:
        try:
            public_url = _public_url(args.public_url)
        except ValueError as exc:
            _say(str(exc))
            return 2
        # a proxy or balancer that keeps the human's Host header forwards that name
        hosts.add(_host_name(urllib.parse.urlsplit(public_url).hostname or ""))
    try:
        notifier = _notifier(args)
    except NotifyUnavailable as exc:
        _say(str(exc))
        return 1
    except NotifyError as exc:
        source = "" if args.notify else f" (from {NOTIFY_ENV})"
        _say(f"{exc}{source}")
        return 2
    context = None
    if args.certfile:
        try:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(args.certfile, args.keyfile)
            # a phone reaches the server by a name the certificate vouches for
            hosts.update(certificate_names(args.certfile))
        except (OSError, ssl.SSLError, ValueError) as exc:
            _say(f"cannot load the TLS certificate: {exc}")
            return 1
    try:
        state_dir().mkdir(mode=0o700, parents=True, exist_ok=True)
        token = _token(args.new_token)
        store = open_store(args.store)
    except (OSError, StoreError) as exc:
        _say(str(exc))
        return 1
    try:
        return asyncio.run(
            _serve(
                args,
                store,
                token,
                context=context,
                hosts=hosts,
                notifier=notifier,
                public_url=public_url,
            )
        )
    finally:
        store.close()


async def _serve(
    args: argparse.Namespace,
    store: Store,
    token: str,
    *,
    context: ssl.SSLContext | None,
    hosts: set[str],
    notifier: Notifier | None,
    public_url: str | None,
) -> int:
    server = InboxServer(
        store, token, retain=args.retain, hosts=hosts, notifier=notifier, public_url=public_url
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    try:
        await server.start(args.host, args.port, context)
    except OSError as exc:
        await server.close()
        _say(f"cannot listen on {args.host}:{args.port}: {exc}")
        return 1
    path = address_file()
    record = {"url": server.base + "/", "token": token, "pid": os.getpid()}
    try:
        write_private(path, json.dumps(record) + "\n")
        _say(
            f"serving at {server.base}/ (store {shown_url(args.store or default_store_url())}); "
            "user-interaction inbox open prints the address with its token"
        )
        await stop.wait()
    finally:
        _remove_if_ours(path)
        await server.close()
    return 0


def _remove_if_ours(path: Path) -> None:
    """Remove ``inbox.json`` unless another server has written its own since."""
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass
