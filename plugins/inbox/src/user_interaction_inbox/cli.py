"""``user-interaction inbox``: run the inbox server and answer its asks from a terminal or a
script (a command of the ``user_interaction.commands`` entry-point group).

- ``inbox serve``: the server, until SIGINT or SIGTERM;
- ``inbox open [--browser]``: the page's address with its token;
- ``inbox list [--json]``: the pending asks, oldest first;
- ``inbox answer ID``: ask the human here through a provider, or settle the ask from a
  script with ``--answer JSON``, ``--cancel`` or ``--decline``;
- ``inbox attend``: ask the human here, through a provider, every pending ask oldest first,
  then each new one as it arrives, until Ctrl-C.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import sys
import threading
import time
import urllib.parse
from typing import Any, Final

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    INVALID_ANSWER,
    AbortController,
    AbortSignal,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    find_provider,
)
from user_interaction.cli import add_provider_option, seconds
from user_interaction.terminal import visible
from user_interaction.toolkit import start_thread

from ._address import Address, InboxUnreachable, Reply, find_address

__all__ = ["add_arguments", "run"]

PROG: Final = "user-interaction inbox"
#: The default port of ``inbox serve``.
DEFAULT_PORT: Final = 8765
_EXIT_OK: Final = 0
_EXIT_ERROR: Final = 1
_EXIT_USAGE: Final = 2
_EXIT_INTERRUPTED: Final = 130
#: Seconds ``inbox attend`` asks the server to hold a list request (``?wait=``) for news.
ATTEND_WAIT: Final = 25.0
#: How long the watcher of the ask being asked holds each list request: short, so that
#: it can be joined as soon as its ask ends.
_WATCH_WAIT: Final = 1.0
#: Seconds between attempts to reach an inbox that stopped answering (it restarts).
_RETRY_DELAYS: Final = (0.1, 0.3, 0.5, 1.0, 2.0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``user-interaction inbox``'s subcommands and their options."""
    parser.description = (
        "Asks that outlive their process: a server keeps every agent's pending asks in a "
        "store; the human answers them here."
    )
    commands = parser.add_subparsers(dest="inbox_command", metavar="COMMAND", required=True)

    serve = commands.add_parser("serve", help="run the inbox server until SIGINT or SIGTERM")
    serve.add_argument(
        "--store",
        metavar="URL",
        help="where asks are kept (default: sqlite:/// and inbox.sqlite3 in the state directory)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to bind (default {DEFAULT_PORT}; 0: a free port, written to inbox.json)",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not loopback (needs --certfile and --keyfile)",
    )
    serve.add_argument("--certfile", metavar="PATH", help="TLS certificate (PEM)")
    serve.add_argument("--keyfile", metavar="PATH", help="TLS private key (PEM)")
    serve.add_argument(
        "--new-token", action="store_true", help="replace the token kept in inbox.token"
    )
    serve.add_argument(
        "--notify",
        action="append",
        metavar="URL",
        help="announce each new ask to this Apprise URL (repeatable; default: the "
        "whitespace-separated URLs of USER_INTERACTION_INBOX_NOTIFY; needs the notify extra)",
    )
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="where humans reach this server, for the links in notifications (a tunnel's or "
        "a load balancer's https://HOST[:PORT]; default: the address it listens on)",
    )
    serve.add_argument(
        "--retain",
        type=seconds,
        default=7 * 24 * 3600.0,
        metavar="SECONDS",
        help="how long settled asks (and the answers of their keys) are kept (default 7 days)",
    )

    opened = commands.add_parser("open", help="print the page's address with its token")
    opened.add_argument("--browser", action="store_true", help="open it in a browser too")

    listed = commands.add_parser("list", help="the pending asks, oldest first")
    listed.add_argument("--json", action="store_true", help="as JSON (a stable shape)")

    answer = commands.add_parser("answer", help="answer a pending ask")
    answer.add_argument("id", metavar="ID", help="the ask's id, as inbox list shows it")
    how = answer.add_mutually_exclusive_group()
    how.add_argument(
        "--provider",
        "-p",
        metavar="NAME",
        help="ask the human through this provider (default: the best available one, "
        "never inbox or any)",
    )
    how.add_argument("--answer", metavar="JSON", help='the answer in wire form: {"answers": [...]}')
    how.add_argument("--cancel", action="store_true", help="dismiss the ask (ASK_CANCELLED)")
    how.add_argument("--decline", action="store_true", help="refuse it (ASK_DECLINED)")
    add_provider_option(answer)
    answer.add_argument(
        "--by", metavar="NAME", help="who answers, as the agent's side sees it (default: user)"
    )

    attend = commands.add_parser(
        "attend", help="ask the human here every pending ask, then each new one, until Ctrl-C"
    )
    attend.add_argument(
        "--provider",
        "-p",
        metavar="NAME",
        help="ask through this provider (default: the best available one, never inbox or any)",
    )
    add_provider_option(attend)
    attend.add_argument(
        "--by", metavar="NAME", help="who answers, as the agent's side sees it (default: user)"
    )
    parser.epilog = (
        "exit status: 0 done; 1 no inbox, no such ask, or already answered (who and when "
        "are said); 3 the human cancelled or declined; 7 the answer is invalid; 130 attend "
        "stopped by Ctrl-C (the asks stay pending)"
    )


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status."""
    command = args.inbox_command
    try:
        if command == "serve":
            from ._serve import serve

            return serve(args)
        if command == "open":
            return _open(args)
        if command == "list":
            return _list(args)
        if command == "attend":
            return _attend(args)
        return _answer(args)
    except InboxUnreachable as exc:
        _say(str(exc))
        return _EXIT_ERROR


def _say(text: str) -> None:
    sys.stderr.write(f"{PROG}: {visible(' '.join(text.split()))}\n")
    sys.stderr.flush()


def _open(args: argparse.Namespace) -> int:
    address = find_address()
    print(address.page, flush=True)
    if args.browser:
        import webbrowser

        if not webbrowser.open(address.page):
            _say("found no browser to open (set BROWSER to one); open the address above")
            return _EXIT_ERROR
    return _EXIT_OK


def _list(args: argparse.Namespace) -> int:
    reply = _call(find_address(), "GET", "/api/asks")
    now = float(reply.body.get("now", time.time()))
    asks = [_listed(ask, now) for ask in reply.body.get("asks", [])]
    if args.json:
        print(json.dumps({"asks": asks}, indent=2, ensure_ascii=False), flush=True)
        return _EXIT_OK
    if not asks:
        print("No pending asks.", flush=True)
        return _EXIT_OK
    for ask in asks:
        key = f"  key {visible(ask['key'])}" if ask["key"] else ""
        print(f"{ask['id']}  {visible(ask['agent'])}  {_age(ask['age'])} ago{key}")
        for question in ask["questions"]:
            header = f"[{visible(question['header'])}] " if question.get("header") else ""
            print(f"    {header}{visible(question['question'])}")
    sys.stdout.flush()
    return _EXIT_OK


def _listed(ask: dict[str, Any], now: float) -> dict[str, Any]:
    """One ask in ``inbox list --json``'s shape."""
    deadline = ask.get("deadline")
    return {
        "id": ask["id"],
        "key": ask.get("key"),
        "agent": ask["agent"],
        "created": _iso(ask["created"]),
        "age": round(max(0.0, now - ask["created"]), 3),
        "deadline": None if deadline is None else _iso(deadline),
        "questions": ask["request"]["questions"],
    }


def _iso(when: float) -> str:
    return datetime.datetime.fromtimestamp(when, datetime.timezone.utc).isoformat(
        timespec="seconds"
    )


def _age(age: float) -> str:
    if age < 60:
        return f"{age:.0f}s"
    if age < 3600:
        return f"{age / 60:.0f}m"
    if age < 86400:
        return f"{age / 3600:.1f}h"
    return f"{age / 86400:.1f}d"


def _call(
    address: Address, method: str, path: str, payload: object = None, *, timeout: float = 10.0
) -> Reply:
    reply = address.request(method, path, payload, timeout=timeout)
    if reply.status == 403:
        raise InboxUnreachable(
            f"the inbox at {address.base} refused the token: {reply.body.get('error', '')}"
        )
    return reply


def _answer(args: argparse.Namespace) -> int:
    address = find_address()
    ask_id = args.id
    path = f"/api/asks/{ask_id}"
    reply = _call(address, "GET", path)
    if reply.status == 404:
        _say(f"no ask {ask_id!r} in the inbox at {address.base}")
        return _EXIT_ERROR
    if reply.status != 200:
        _say(f"the inbox answered {reply.status}: {reply.body.get('error', '')}")
        return _EXIT_ERROR
    if reply.body.get("state") != "pending":
        _say(_settled_message(reply.body))
        return _EXIT_ERROR
    by = args.by or getpass.getuser() or "user"
    payload: dict[str, Any]
    if args.cancel:
        payload = {"action": "cancel", "by": by}
    elif args.decline:
        payload = {"action": "decline", "by": by}
    elif args.answer is not None:
        try:
            answer = json.loads(args.answer)
        except ValueError as exc:
            raise UserInteractionError(f"--answer is not JSON: {exc}", INVALID_ANSWER) from None
        payload = {"action": "answer", "answer": answer, "by": by}
    else:
        payload = _ask_here(args, reply.body, by)
    settled = _call(address, "POST", f"{path}/settle", payload)
    if settled.status == 200:
        return _EXIT_OK
    if settled.status == 409:
        _say(_settled_message(settled.body))
        return _EXIT_ERROR
    if settled.status == 422:
        raise UserInteractionError(str(settled.body.get("error", "invalid answer")), INVALID_ANSWER)
    if settled.status == 404:
        _say(f"no ask {ask_id!r} in the inbox at {address.base}")
        return _EXIT_ERROR
    _say(f"the inbox answered {settled.status}: {settled.body.get('error', '')}")
    return _EXIT_ERROR


def _ask_here(args: argparse.Namespace, ask: dict[str, Any], by: str) -> dict[str, Any]:
    """Ask the human through a provider of this machine; what to settle the ask with."""
    with UserInteraction() as ui:
        ui.use(_human_side(args), **dict(args.provider_option))
        return _ask_through(ui, ask, by)


def _human_side(args: argparse.Namespace) -> str:
    """The provider asking the human here: ``--provider``, else the one the usual rules
    choose, leaving out ``inbox`` and ``any`` (they would ask the inbox itself)."""
    return str(args.provider or find_provider(exclude=("inbox", "any")).name)


def _ask_through(
    ui: UserInteraction, ask: dict[str, Any], by: str, signal: AbortSignal | None = None
) -> dict[str, Any]:
    """Ask ``ask`` through ``ui``'s provider (within the ask's deadline); what to settle it
    with: the human's answer, cancel or decline. Other errors propagate."""
    request = AskUserQuestionRequest.from_dict(ask["request"])
    request = AskUserQuestionRequest(request.questions, agent=ask["agent"], signal=signal)
    timeout = None
    if ask.get("deadline") is not None:
        timeout = max(0.001, float(ask["deadline"]) - time.time())
    try:
        answer = ui.ask_sync(request, timeout=timeout)
    except UserInteractionError as error:
        if error.code == ASK_CANCELLED:
            return {"action": "cancel", "by": by}
        if error.code == ASK_DECLINED:
            return {"action": "decline", "by": by}
        raise
    return {"action": "answer", "answer": answer.to_dict(), "by": by}


def _attend(args: argparse.Namespace) -> int:
    """Ask the human every pending ask, oldest first, then each new one as it arrives; the
    list is followed with held requests (``?after=CURSOR&wait=``), never by polling.
    Ctrl-C stops and leaves the asks pending."""
    address = find_address()
    name = _human_side(args)
    by = args.by or getpass.getuser() or "user"
    try:
        with UserInteraction() as ui:
            ui.use(name, **dict(args.provider_option))
            _say(f"attending the inbox at {address.base} through {name}; Ctrl-C stops")
            return _attend_loop(address, ui, by)
    except KeyboardInterrupt:
        from user_interaction.cli import forget_caught_interrupt

        forget_caught_interrupt()  # or CPython may end the process by SIGINT after all
        _say("stopped attending; the asks not answered stay pending")
        return _EXIT_INTERRUPTED


class _Following:
    """The inbox attend follows: when it stops answering (it restarts, perhaps on another
    port with another token), attend says so once and reaches it again, reading its
    address afresh (``inbox.json``) between attempts, until it answers or Ctrl-C."""

    def __init__(self, address: Address) -> None:
        self.address = address

    def call(
        self, method: str, path: str, payload: object = None, *, timeout: float = 10.0
    ) -> Reply:
        attempt = 0
        while True:
            try:
                reply = _call(self.address, method, path, payload, timeout=timeout)
            except InboxUnreachable as exc:
                if attempt == 0:
                    _say(f"{exc}; waiting for the inbox to come back (Ctrl-C stops)")
                time.sleep(_RETRY_DELAYS[min(attempt, len(_RETRY_DELAYS) - 1)])
                attempt += 1
                try:
                    self.address = find_address()
                except InboxUnreachable:
                    pass  # not written yet: the next attempt reads it again
                continue
            if attempt:
                _say(f"the inbox answers again at {self.address.base}; attending")
            return reply


def _pending(
    address: Address | _Following, cursor: str | None, wait: float = ATTEND_WAIT
) -> tuple[list[dict[str, Any]], str]:
    """The pending asks and the list's cursor; with ``cursor``, once the list differs from
    the one it names (or after ``wait`` seconds). Through a :class:`_Following`, an inbox
    that stops answering is waited for."""
    path = "/api/asks"
    if cursor is not None:
        path += f"?after={urllib.parse.quote(cursor)}&wait={wait:g}"
    if isinstance(address, _Following):
        reply = address.call("GET", path, timeout=wait + 15.0)
        base = address.address.base
    else:
        reply = _call(address, "GET", path, timeout=wait + 15.0)
        base = address.base
    new_cursor = reply.body.get("cursor")
    if reply.status != 200 or not isinstance(new_cursor, str):
        raise InboxUnreachable(
            f"the inbox at {base} cannot be attended (it answered {reply.status}"
            f"{': ' + str(reply.body['error']) if reply.body.get('error') else ''}; "
            "an older server has no cursor): restart it with this version"
        )
    asks: list[dict[str, Any]] = reply.body.get("asks", [])
    return asks, new_cursor


def _attend_loop(address: Address, ui: UserInteraction, by: str) -> int:
    asked: set[str] = set()  # asked here already: left pending (a timeout), not asked again
    cursor: str | None = None
    idle = False
    # An inbox that does not answer at the start is an error; once attending, one that
    # stops answering is waited for (it restarts).
    asks, latest = _pending(address, None)
    inbox = _Following(address)
    while True:
        if cursor is not None:
            asks, latest = _pending(inbox, cursor)
        asked &= {ask["id"] for ask in asks}
        todo = [ask for ask in asks if ask["id"] not in asked]
        if not todo:
            if not idle:
                _say("waiting for new asks")
                idle = True
            cursor = latest
            continue
        idle = False
        asked.add(todo[0]["id"])
        _attend_one(inbox, ui, todo[0], by, latest)
        asks, latest = _pending(inbox, None)  # at once: it may have changed meanwhile
        cursor = None


def _attend_one(
    inbox: _Following, ui: UserInteraction, ask: dict[str, Any], by: str, cursor: str
) -> None:
    """Ask one ask here while a thread watches the list: when the ask leaves it (settled
    elsewhere, withdrawn, expired), the local ask is aborted and attending moves on. The
    answer is posted to the inbox as it is then (restarted meanwhile, perhaps)."""
    address = inbox.address
    ask_id = ask["id"]
    _say(f"asking {ask_id} from {ask['agent']}")
    controller = AbortController()
    done = threading.Event()
    watcher = threading.Thread(
        target=_watch,
        args=(address, ask_id, cursor, controller, done),
        name=f"inbox-attend-{ask_id}",
        daemon=True,
    )
    try:
        start_thread(watcher)  # a Ctrl-C meanwhile is raised after it, in this try
        payload = _ask_through(ui, ask, by, controller.signal)
    except UserInteractionError as error:
        if controller.signal.aborted:
            _say(_gone(address, ask_id) + "; moving on")
            return
        if error.code == ASK_TIMEOUT:
            _say(f"ask {ask_id} ran out of time here; moving on")
            return
        raise
    finally:
        # The watcher's held requests are short, so that it is gone before attend goes
        # on or the process ends (a thread still in a request while the interpreter shuts
        # down has crashed it).
        done.set()
        if watcher.ident is not None:  # a Ctrl-C may come before it started, too
            watcher.join(_WATCH_WAIT + 15.0)
    settled = inbox.call("POST", f"/api/asks/{ask_id}/settle", payload)
    if settled.status == 200:
        _say(f"ask {ask_id}: {settled.body.get('state')}")
    elif settled.status == 409:  # settled elsewhere after the human answered here
        _say(_settled_message(settled.body) + "; the answer given here is dropped")
    else:
        _say(
            f"ask {ask_id}: the inbox answered {settled.status}: "
            f"{settled.body.get('error', '')}; moving on"
        )


def _watch(
    address: Address,
    ask_id: str,
    cursor: str,
    controller: AbortController,
    done: threading.Event,
) -> None:
    """Follow the pending list until ``done``; abort ``controller`` when ``ask_id`` leaves it."""
    while not done.is_set():
        try:
            asks, cursor = _pending(address, cursor, _WATCH_WAIT)
        except InboxUnreachable:
            return  # the answer's post will say so
        if done.is_set():
            return
        if all(ask["id"] != ask_id for ask in asks):
            controller.abort(
                UserInteractionError(f"Ask {ask_id} left the inbox meanwhile.", ASK_ABORTED)
            )
            return


def _gone(address: Address, ask_id: str) -> str:
    """Why ``ask_id`` left the pending list: who settled it and when."""
    try:
        reply = _call(address, "GET", f"/api/asks/{ask_id}")
    except InboxUnreachable:
        return f"ask {ask_id} left the inbox"
    if reply.status != 200:
        return f"ask {ask_id} left the inbox"
    return _settled_message(reply.body)


def _settled_message(body: dict[str, Any]) -> str:
    """Who settled an ask, and when."""
    message = f"ask {body.get('id')} is already {body.get('state')}"
    if body.get("settledBy"):
        message += f" by {body['settledBy']}"
    if isinstance(body.get("settled"), (int, float)):
        message += f" at {_iso(body['settled'])}"
    return message
