"""Telling the human that an ask waits: one message per new ask through Apprise (the
``notify`` extra), to every service ``inbox serve --notify URL`` names.

The message is sent off the request path: the agent's ask is acknowledged first, and a
service that fails or hangs only costs a log line. The store remembers which asks were
sent (``mark_notified``, once the services accepted the message); a server starting sends
the pending asks it does not remember as sent, so an ask is notified at least once, and
once unless a server stopped between sending it and marking it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from user_interaction.terminal import visible

from ._store import Store, StoredAsk

if TYPE_CHECKING:
    import apprise

__all__ = [
    "MAX_TEXT",
    "NOTIFY_ENV",
    "SEND_TIMEOUT",
    "Notifications",
    "Notifier",
    "NotifyError",
    "NotifyUnavailable",
    "message",
    "plain",
]

#: The notification services, whitespace-separated, when ``--notify`` is not given.
NOTIFY_ENV: Final = "USER_INTERACTION_INBOX_NOTIFY"
#: The most characters of the ask's text (headers and questions) a message carries.
MAX_TEXT: Final = 300
#: The longest one message is waited for; then it counts as failed.
SEND_TIMEOUT: Final = 30.0
#: Messages sent at once (a restart may find many asks to send).
_AT_ONCE: Final = 4
#: The longest a closing server waits for the messages under way; the others are sent
#: again by the next server to start on the store.
_CLOSE_GRACE: Final = 5.0

_log = logging.getLogger(__name__)


class NotifyError(Exception):
    """A ``--notify`` URL that Apprise does not know."""


class NotifyUnavailable(NotifyError):
    """``--notify`` without Apprise installed."""


def plain(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` as one line of plain text, at most ``limit`` characters (cut with "…"):
    runs of white space become one space, and every control or invisible character (those
    :func:`~user_interaction.terminal.visible` shows as escapes: terminal sequences, bidi
    overrides, zero-width and tag characters) is removed."""
    kept: list[str] = []
    size = -1
    for word in text.split():
        shown = "".join(char for char in word if visible(char) == char)
        if shown:
            kept.append(shown)
            size += len(shown) + 1
            if size > limit:
                break
    line = " ".join(kept)
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def message(ask: StoredAsk, link: str) -> tuple[str, str]:
    """The title and body that announce ``ask``: ``<agent> asks``; each question (after
    its header) on a line, at most :data:`MAX_TEXT` characters in all, then ``link``."""
    agent = plain(ask.agent, 100) or "An agent"
    lines = []
    questions = ask.request.get("questions")
    for question in questions if isinstance(questions, list) else ():
        if not isinstance(question, dict):
            continue
        header = plain(str(question.get("header") or ""))
        text = plain(str(question.get("question") or ""))
        lines.append(f"{header}: {text}" if header else text)
    text = "\n".join(line for line in lines if line)
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1].rstrip() + "…"
    return f"{agent} asks", f"{text}\n{link}" if text else link


def _shown(url: str) -> str:
    """A ``--notify`` URL as an error shows it: its scheme only (the rest often holds a
    secret: a bot token, a webhook key, a password)."""
    scheme, sep, _ = url.partition("://")
    return visible(f"{scheme}://…" if sep else url[:40])


class Notifier:
    """The services of ``urls``; :class:`NotifyError` for one Apprise does not know,
    :class:`NotifyUnavailable` without Apprise."""

    def __init__(self, urls: Sequence[str], *, timeout: float = SEND_TIMEOUT) -> None:
        try:
            import apprise
        except ImportError:
            raise NotifyUnavailable(
                "--notify needs Apprise: pip install 'user-interaction-inbox[notify]'"
            ) from None
        self.timeout = timeout
        self._apprise: apprise.Apprise = apprise.Apprise()
        self._format: Any = apprise.NotifyFormat.TEXT
        with warnings.catch_warnings():
            # The first add() loads every Apprise service; its e-mail one imports imghdr,
            # which warns on Python 3.11-3.12: nothing our users can act on.
            warnings.filterwarnings("ignore", "'imghdr' is deprecated", DeprecationWarning)
            for url in urls:
                if not self._apprise.add(url):
                    raise NotifyError(
                        f"--notify {_shown(url)}: not a notification URL Apprise knows "
                        "(an unknown service, or a malformed address)"
                    )

    async def send(self, title: str, body: str) -> str | None:
        """Send one message to every service; ``None`` once they all accepted it, else
        why not (never raises, never waits longer than ``timeout``)."""
        try:
            result = await asyncio.wait_for(
                self._apprise.async_notify(title=title, body=body, body_format=self._format),
                self.timeout,
            )
        except asyncio.TimeoutError:
            return f"no answer within {self.timeout:g} s"
        except Exception as exc:  # a service's bug must not end the server
            return f"{type(exc).__name__}: {exc}"
        if result:
            return None
        logs = getattr(result, "logs", None)
        reasons = [getattr(entry, "message", str(entry)) for entry in logs()] if logs else []
        return str(reasons[-1]) if reasons else "a service refused it"


class Notifications:
    """What a server does with a :class:`Notifier`: one task per new ask (kept until it
    ends), at most a few at once, and the store marked once the services accepted."""

    def __init__(self, notifier: Notifier, store: Store) -> None:
        self.notifier = notifier
        self.store = store
        self._base = ""
        self._pending: Callable[[str], bool] = lambda _: True
        self._tasks: set[asyncio.Task[None]] = set()
        self._sending: set[str] = set()
        self._slots = asyncio.Semaphore(_AT_ONCE)

    def start(self, base: str, pending: Callable[[str], bool], asks: Iterable[StoredAsk]) -> None:
        """Link asks to the page at ``base`` (``<base>/asks/<id>``, no token); send only
        asks ``pending(id)`` says still wait; begin with ``asks`` (those never sent)."""
        self._base = base.rstrip("/")
        self._pending = pending
        for ask in asks:
            self.new(ask)

    def new(self, ask: StoredAsk) -> None:
        """Send ``ask``'s message in a task of its own (the caller does not wait)."""
        if ask.id in self._sending:
            return
        self._sending.add(ask.id)
        task = asyncio.get_running_loop().create_task(self._send(ask))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, ask: StoredAsk) -> None:
        # Created while the ask's post is handled: let its acknowledgement go out first.
        await asyncio.sleep(0)
        try:
            async with self._slots:
                if not self._pending(ask.id):
                    return  # settled meanwhile: nothing waits for the human any more
                title, body = message(ask, f"{self._base}/asks/{ask.id}")
                failure = await self.notifier.send(title, body)
                if failure is not None:
                    _log.warning("the notification of ask %s was not sent: %s", ask.id, failure)
                    return
                await asyncio.to_thread(self.store.mark_notified, ask.id, time.time())
        except Exception as exc:
            _log.warning("the notification of ask %s failed: %s", ask.id, exc)
        finally:
            self._sending.discard(ask.id)

    async def close(self) -> None:
        """Give the messages under way a few seconds, then stop waiting for them (their
        asks stay unmarked: the next server to start sends them)."""
        if self._tasks:
            _, late = await asyncio.wait(self._tasks, timeout=_CLOSE_GRACE)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
