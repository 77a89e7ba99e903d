"""What providers share: plain-text renderings of what a request carries, and the words
an error message uses for a value of the wrong kind.

A UI that cannot show Markdown (a form field, a notification, a chat message) shows an
option's preview through :func:`plain_preview` and its description with the preview
through :func:`option_text`; :func:`shorten` quotes a question inside a label. A provider
that reads answers from a client (a form's reply, JSON from a page) names what it got
with :func:`describe_value` — the same words the core's own request and answer checks
use — and lists what was allowed with :func:`quoted`. :func:`clock` writes the time left
to answer (``request.signal.time_left()``) as every UI shows it. :func:`start_thread`
starts a thread (a reader, a watcher) so that a Ctrl-C cannot leave it half started.

Disposal needs no helper: the manager fires each pending ask's ``request.signal`` with
``PROVIDER_DISPOSED`` before it calls ``dispose()``, so a provider that waits through
``request.signal.race(...)`` ends its asks without keeping a set of them (see "The life
cycle of an ask" on the documentation's Semantics page).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from ._describe import describe_value
from ._threads import start_thread

if TYPE_CHECKING:
    from ._model import AskUserQuestionOption

__all__ = [
    "PREVIEW_LIMIT",
    "clock",
    "describe_value",
    "option_text",
    "plain_preview",
    "quoted",
    "shorten",
    "start_thread",
]

#: The most characters of a preview :func:`plain_preview` keeps by default.
PREVIEW_LIMIT: Final = 2000
_FENCE: Final = re.compile(r"^\s*(```|~~~)")
_BLANK_LINES: Final = re.compile(r"\n{3,}")
_ELLIPSIS: Final = "…"


def plain_preview(preview: str, limit: int = PREVIEW_LIMIT) -> str:
    """A Markdown preview as plain text: the code fences' lines dropped, trailing spaces
    and runs of blank lines trimmed, and at most ``limit`` characters (the last one ``…``
    when it was cut)."""
    lines = [line.rstrip() for line in preview.splitlines() if not _FENCE.match(line)]
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip("\n")
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + _ELLIPSIS
    return text


def option_text(option: AskUserQuestionOption, limit: int = PREVIEW_LIMIT) -> str | None:
    """An option's description, then its preview as plain text (:func:`plain_preview`), a
    blank line apart; ``None`` when it has neither."""
    parts = [option.description] if option.description else []
    if option.preview and option.preview.strip():
        parts.append(plain_preview(option.preview, limit))
    return "\n\n".join(parts) or None


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (runs of white space made one space), at most ``limit``
    characters, the last one ``…`` when it was cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + _ELLIPSIS


def quoted(values: Iterable[str]) -> str:
    """``values`` quoted and comma-separated (``'a', 'b'``): what an error lists as allowed."""
    return ", ".join(repr(value) for value in values)


def clock(seconds: float) -> str:
    """``seconds`` left as ``m:ss`` (``h:mm:ss`` from an hour), rounded up: a countdown
    shows 0:00 only when the time is up."""
    whole = max(0, int(-(-seconds // 1)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
