"""Built-in extensions, and the answers-file engine they share with the scripted provider.

* :class:`AuditLog` appends one JSON line per finished ask to a file (turned on for every
  context by ``USER_INTERACTION_AUDIT=<path>``).
* :class:`PreAnswered` answers the questions an answers file covers and asks the human
  only the rest (``USER_INTERACTION_PREANSWERED=<path>``).
* :class:`RememberedDecisions` remembers the approvals answered ``Always allow`` or
  ``Always deny`` in an SQLite file and answers them from there
  (``USER_INTERACTION_DECISIONS=<path>``).
* :class:`TraceLog` logs each ask to the ``user_interaction.trace`` logger (the command
  line's ``--trace``).
* :class:`AnswersFile` reads the answers-file format (see the scripted provider's README).

Add one to a context with ``ui.add_extension(AuditLog("asks.jsonl"))``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Final, Union

import attrs

from ._answers_file import (
    INVALID_ANSWERS_FILE,
    OMIT,
    SILENT,
    UNANSWERED_QUESTION,
    Answered,
    AnswersFile,
    Ruling,
)
from ._approval import ALWAYS_ALLOW, ALWAYS_DENY, APPROVE_ID, approval_name
from ._decisions import DECISIONS_ENV, Decision, DecisionKeeper, DecisionStore, decisions_path
from ._discovery import (
    AUDIT_ENV,
    DISABLE_AUTOLOAD_ENV,
    EXTENSION_GROUP,
    EXTENSIONS_ENV,
    PREANSWERED_ENV,
    ExtensionInfo,
    installed_extensions,
)
from ._hooks import AskFunction, AskWrapper, ExtensionSpec, hookimpl
from ._model import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionRequest

if TYPE_CHECKING:
    from ._errors import UserInteractionError

__all__ = [
    "AUDIT_ENV",
    "DECISIONS_ENV",
    "DISABLE_AUTOLOAD_ENV",
    "EXTENSIONS_ENV",
    "EXTENSION_GROUP",
    "INVALID_ANSWERS_FILE",
    "OMIT",
    "PREANSWERED_ENV",
    "SILENT",
    "TRACE_LOGGER",
    "UNANSWERED_QUESTION",
    "Answered",
    "AnswersFile",
    "AskFunction",
    "AskWrapper",
    "AuditLog",
    "Decision",
    "DecisionKeeper",
    "DecisionStore",
    "ExtensionInfo",
    "ExtensionSpec",
    "PreAnswered",
    "RememberedDecisions",
    "Ruling",
    "TraceLog",
    "decisions_path",
    "installed_extensions",
]

PathLike = Union[str, "os.PathLike[str]"]

_encode: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

#: The :mod:`logging` logger :class:`TraceLog` writes to.
TRACE_LOGGER: Final = "user_interaction.trace"


class AuditLog:
    """Appends one JSON line per finished ask to ``path``.

    Each line holds ``time`` (UTC, ISO 8601), ``provider``, ``request`` (wire form),
    ``answer`` (wire form) or ``error`` (``{"name", "code", "message"}``) and ``seconds``;
    an approval a remembered decision answered also has ``"remembered": true``.
    The file is opened for appending and every line written whole by one ``write``, so
    lines from many threads and processes never interleave, and each is on disk (not in a
    buffer) when the ask returns.
    """

    def __init__(self, path: PathLike) -> None:
        #: The file the lines are appended to.
        self.path = Path(path)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(self.path, flags, 0o644)
        self._lock = threading.Lock()
        self._closer = weakref.finalize(self, os.close, self._fd)
        self._stamp = (0, "")

    def __repr__(self) -> str:
        return f"<AuditLog {str(self.path)!r}>"

    @hookimpl
    def ask_finished(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: UserInteractionError | None,
        provider: str | None,
        seconds: float,
    ) -> None:
        """Append the ask's line."""
        now = time.time()
        second = int(now)
        stamp = self._stamp
        if stamp[0] != second:  # formatted once a second
            stamp = self._stamp = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)))
        record: dict[str, object] = {
            "time": f"{stamp[1]}.{int((now - second) * 1000):03d}Z",
            "provider": provider,
            "request": request.to_dict(),
        }
        if error is not None:
            record["error"] = error.to_dict()
        elif answer is not None:
            record["answer"] = answer.to_dict()
            if provider is None and approval_name(request) is not None:
                record["remembered"] = True  # a remembered decision answered it
        record["seconds"] = round(seconds, 6)
        line = (_encode(record) + "\n").encode("utf-8")
        with self._lock:
            written = os.write(self._fd, line)
            while written < len(line):  # only ever on a full disk or a signal
                written += os.write(self._fd, line[written:])

    def close(self) -> None:
        """Close the file (also done when the object is collected); idempotent."""
        self._closer()


class PreAnswered:
    """Answers the questions an answers file covers; asks the human only the rest.

    The file (the scripted provider's format) is read when this is built and again at
    every ask. A question it answers (by id, pattern or default) is answered from it:
    ``{"omit": true}`` as skipped (a question nobody was asked cannot be left out of the
    answer), and an ``{"error": CODE}`` answer ends the ask with that error. The other
    questions, those whose scripted answer does not fit them (a label not offered) and
    those the file keeps ``silent`` go to the provider in one request, and the answers are
    merged in the request's order. When the file covers every question, the provider is
    not asked.
    """

    def __init__(self, path: PathLike) -> None:
        #: The answers file.
        self.path = Path(path)
        self._current = AnswersFile.follow(self.path)

    def __repr__(self) -> str:
        return f"<PreAnswered {str(self.path)!r}>"

    @hookimpl
    def ask_wrapper(self, ui: object) -> AskWrapper:
        """Wrap every ask of ``ui``."""
        return self.wrap

    def wrap(self, next_ask: AskFunction) -> AskFunction:
        """The ask that answers from the file before calling ``next_ask``."""

        async def ask(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            book = self._current()
            answered: dict[str, AskUserQuestionAnswerItem] = {}
            rest = []
            for item in request.questions:
                ruling = book.ruling(item)
                if isinstance(ruling, AskUserQuestionAnswerItem):
                    answered[item.id] = ruling
                elif ruling is OMIT:
                    answered[item.id] = AskUserQuestionAnswerItem(item.id)
                elif isinstance(ruling, Exception) and ruling.code != UNANSWERED_QUESTION:
                    raise ruling
                else:
                    if ruling is not None and ruling is not SILENT:
                        logging.getLogger("user_interaction").warning(
                            "%s: asking the human instead: %s", self.path, ruling
                        )
                    rest.append(item)
            if not rest:
                return AskUserQuestionAnswer(list(answered.values()))
            if not answered:
                return await next_ask(request)
            asked = await next_ask(attrs.evolve(request, questions=rest))
            theirs = {item.id: item for item in asked.answers}
            merged = []
            for item in request.questions:
                mine = answered.get(item.id)
                if mine is not None:
                    merged.append(mine)
                elif item.id in theirs:
                    merged.append(theirs[item.id])
            return AskUserQuestionAnswer(merged)

        return ask


class RememberedDecisions:
    """Remembers approvals answered ``Always allow`` or ``Always deny``, and answers them.

    An approval (``ui.approve(..., remember=NAME)``) whose name has a remembered decision
    is answered at once with that choice, asking nobody (observers see it with provider
    ``None``); an ``Always ...`` the human chooses is stored for every later approval of
    that name, in every process using the same file. ``path`` defaults to
    ``USER_INTERACTION_DECISIONS``, else ``decisions.sqlite3`` in the state directory;
    ``store`` keeps them elsewhere (a provider's, such as the inbox's: one rule for every
    agent of that inbox).
    """

    def __init__(
        self, path: PathLike | None = None, *, store: DecisionKeeper | None = None
    ) -> None:
        if store is not None and path is not None:
            raise TypeError("RememberedDecisions takes a path or a store, not both")
        #: Where the decisions live: a :class:`DecisionStore` (an SQLite file), or the
        #: ``store`` given (any object with ``get(name)`` and ``put(name, allowed)``).
        self.store: DecisionKeeper = DecisionStore(path) if store is None else store

    def __repr__(self) -> str:
        return f"<RememberedDecisions {self.store!r}>"

    @hookimpl
    def ask_wrapper(self, ui: object) -> AskWrapper:
        """Wrap every ask of ``ui``."""
        return self.wrap

    def wrap(self, next_ask: AskFunction) -> AskFunction:
        """The ask that answers a remembered approval before calling ``next_ask``."""
        import asyncio

        store = self.store

        async def ask(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            name = approval_name(request)
            if name is None:
                return await next_ask(request)
            decision = await asyncio.to_thread(store.get, name)
            if decision is not None:
                choice = ALWAYS_ALLOW if decision.allowed else ALWAYS_DENY
                return AskUserQuestionAnswer([AskUserQuestionAnswerItem(APPROVE_ID, [choice])])
            answer = await next_ask(request)
            item = answer.get(APPROVE_ID)
            chosen = item.selected[0] if item is not None and item.selected else None
            if item is not None and item.custom is None and chosen in (ALWAYS_ALLOW, ALWAYS_DENY):
                await asyncio.to_thread(store.put, name, chosen == ALWAYS_ALLOW)
            return answer

        return ask


class TraceLog:
    """Logs one line per finished ask to the ``user_interaction.trace`` logger: the
    provider, the question ids, the time taken and the outcome (``ANSWERED`` or the error
    code); with ``answers=True``, the answers too (they may be sensitive).

    The command line's ``--trace`` is this extension, and a small example of an observer.
    """

    def __init__(self, *, answers: bool = False, logger: str = TRACE_LOGGER) -> None:
        #: Whether the answers are logged.
        self.answers = answers
        self._log = logging.getLogger(logger)

    def __repr__(self) -> str:
        return f"<TraceLog answers={self.answers}>"

    @hookimpl
    def ask_finished(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: UserInteractionError | None,
        provider: str | None,
        seconds: float,
    ) -> None:
        """Log the ask's line."""
        extra = ""
        if error is not None:
            outcome = error.code
        else:
            outcome = "ANSWERED"
            if self.answers and answer is not None:
                data = json.dumps(answer.to_dict(), ensure_ascii=False, separators=(",", ":"))
                extra = f" answers={data}"
        self._log.info(
            "ask provider=%s questions=%s duration=%.3fs outcome=%s%s",
            provider or "-",
            ",".join(item.id for item in request.questions),
            seconds,
            outcome,
            extra,
        )
