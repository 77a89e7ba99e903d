"""Client side: route the elicitations an MCP client receives to a ``UserInteraction``.

``mcp.Client(server, elicitation_callback=elicitation_handler(ui))``: every
``elicitation/create`` a server sends becomes one ``ask()`` on ``ui`` (a re-ask at most
once more), so it shows in whatever UI the harness already uses.
"""

from __future__ import annotations

import logging
import marshal
import threading
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteractionError,
)

from ._schema_questions import SKIPPED, Field, Misfit, Unsupported, fields

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext, ElicitationFnT

    from user_interaction import UserInteraction

__all__ = ["LOGGER", "elicitation_handler"]

#: The :mod:`logging` logger of declined and failed elicitations.
LOGGER: Final = "user_interaction_mcp"

_DISMISSED: Final = frozenset({ASK_CANCELLED, ASK_ABORTED, ASK_TIMEOUT})
_ACCEPT: Final = "Accept"
_DECLINE: Final = "Decline"
_DONE: Final = "Done"
_CANCEL: Final = "Cancel"
_LONGEST_HEADER: Final = 40
_REQUIRED: Final = "This question needs an answer."
#: Forms remembered per handler (a server tends to send the same form again and again),
#: and the largest schema remembered (its marshalled size, in bytes).
_REMEMBERED: Final = 32
_LARGEST_REMEMBERED: Final = 64 * 1024

_FirstRound = tuple["list[Field]", "AskUserQuestionRequest | None"]

_log = logging.getLogger(LOGGER)


def elicitation_handler(ui: UserInteraction, *, timeout: float | None = None) -> ElicitationFnT:
    """A callback for the MCP SDK client's ``elicitation_callback=``.

    Each elicitation becomes one ask on ``ui`` (``timeout`` seconds at most, each): form
    properties become questions (enums single- or multi-select, booleans Yes/No, strings
    and numbers free text checked after the answer, re-asked once with the reason when
    they do not fit), a URL elicitation one question with the address and Done / Cancel.
    The answer is sent back as ``accept`` with typed content; a dismissed, aborted or
    timed-out ask as ``cancel``; a declined one as ``decline``. A schema that cannot be
    asked is declined, and any other failure is a ``cancel``, both logged to the
    ``user_interaction_mcp`` logger: nothing the server sends raises into the session.
    """
    return _ElicitationHandler(ui, timeout)


class _ElicitationHandler:
    __slots__ = ("_forms", "_lock", "_timeout", "_ui")

    def __init__(self, ui: UserInteraction, timeout: float | None) -> None:
        self._ui = ui
        self._timeout = timeout
        self._forms: dict[tuple[bytes, str | None, str | None], _FirstRound] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<elicitation_handler ui={self._ui!r} timeout={self._timeout!r}>"

    async def __call__(self, context: ClientRequestContext, params: Any) -> ElicitResult:
        server = _server_name(context)
        try:
            if isinstance(params, ElicitRequestURLParams):
                return await self._url(params, server)
            if isinstance(params, ElicitRequestFormParams):
                return await self._form(params, server)
            raise Unsupported(f"an elicitation of mode {getattr(params, 'mode', None)!r}")
        except Unsupported as exc:
            _log.warning("declined an elicitation from %s: %s", _who(server), exc)
            return ElicitResult(action="decline")
        except UserInteractionError as error:
            if error.code == ASK_DECLINED:
                return ElicitResult(action="decline")
            if error.code not in _DISMISSED:
                _log.error(
                    "cancelled an elicitation from %s: %s: %s", _who(server), error.code, error
                )
            return ElicitResult(action="cancel")
        except Exception:  # a bug here must not end the client's session
            _log.exception("cancelled an elicitation from %s", _who(server))
            return ElicitResult(action="cancel")

    async def _ask(self, questions: list[AskUserQuestionItem]) -> AskUserQuestionAnswer:
        return await self._ui.ask(AskUserQuestionRequest(questions), timeout=self._timeout)

    def _first_round(self, schema: Any, message: str | None, server: str | None) -> _FirstRound:
        """The fields of ``schema`` and the request that asks them all; a form seen before
        is not read again (immutable, so one request serves every ask of it)."""
        try:
            key = (marshal.dumps(schema), message, server)
        except ValueError:  # not plain JSON data, or nested too deeply to be a form
            key = None
        if key is not None:
            known = self._forms.get(key)
            if known is not None:
                return known
        form = fields(schema)
        request = AskUserQuestionRequest(_questions(form, {}, message, server)) if form else None
        if key is not None and len(key[0]) <= _LARGEST_REMEMBERED:
            with self._lock:
                if len(self._forms) >= _REMEMBERED:
                    self._forms.pop(next(iter(self._forms)))
                self._forms[key] = (form, request)
        return form, request

    async def _form(self, params: ElicitRequestFormParams, server: str | None) -> ElicitResult:
        message = params.message if params.message.strip() else None
        form, request = self._first_round(params.requested_schema, message, server)
        if request is None:
            return await self._confirm(message, server)
        content: dict[str, Any] = {}
        pending = form
        reasons: dict[str, str] = {}
        for last in (False, True):
            if last:
                request = AskUserQuestionRequest(_questions(pending, reasons, message, server))
            answer = await self._ui.ask(request, timeout=self._timeout)
            reasons = {}
            misfit = False
            for field in pending:
                try:
                    value = field.convert(answer.get(field.name))
                except Misfit as exc:
                    reasons[field.name] = str(exc)
                    misfit = True
                    continue
                if value is SKIPPED:
                    if field.required:
                        reasons[field.name] = _REQUIRED
                    continue
                content[field.name] = value
            if not reasons:
                return ElicitResult(action="accept", content=content)
            if last:
                return ElicitResult(action="decline" if misfit else "cancel")
            pending = [field for field in pending if field.name in reasons]
        raise AssertionError("unreachable")  # pragma: no cover

    async def _confirm(self, message: str | None, server: str | None) -> ElicitResult:
        """A form without properties: the message, to accept or decline."""
        item = AskUserQuestionItem(
            "confirm",
            message or "Continue?",
            header=_header(server),
            options=(AskUserQuestionOption(_ACCEPT), AskUserQuestionOption(_DECLINE)),
        )
        answer = await self._ask([item])
        chosen = answer.get("confirm")
        if chosen is not None and chosen.selected == (_ACCEPT,):
            return ElicitResult(action="accept", content={})
        if chosen is not None and chosen.selected == (_DECLINE,):
            return ElicitResult(action="decline")
        return ElicitResult(action="cancel")

    async def _url(self, params: ElicitRequestURLParams, server: str | None) -> ElicitResult:
        """Out of band: show the address; Done accepts, anything else cancels."""
        url = params.url
        if not _web_address(url):
            raise Unsupported(f"a URL elicitation to {url[:80]!r} (only http and https)")
        item = AskUserQuestionItem(
            "url",
            params.message if params.message.strip() else "Open this address to continue.",
            header=_header(server),
            options=(AskUserQuestionOption(_DONE), AskUserQuestionOption(_CANCEL)),
            detail=f"Open this address in your browser, then choose {_DONE}:\n{url}",
        )
        answer = await self._ask([item])
        chosen = answer.get("url")
        if chosen is not None and (
            chosen.selected == (_DONE,)
            or (chosen.custom is not None and chosen.custom.strip().casefold() == "done")
        ):
            return ElicitResult(action="accept")
        return ElicitResult(action="cancel")


def _questions(
    pending: list[Field], reasons: dict[str, str], message: str | None, server: str | None
) -> list[AskUserQuestionItem]:
    """One question per field; the first carries the server's name and the message."""
    questions = []
    for index, field in enumerate(pending):
        detail = []
        reason = reasons.get(field.name)
        if reason is not None:
            detail.append(reason)
        if index == 0 and message is not None:
            detail.append(message)
        questions.append(field.question(detail, _header(server) if index == 0 else None))
    return questions


def _web_address(url: str) -> bool:
    """Whether ``url`` is a plain http(s) address: nothing else is shown to open."""
    if not url.isprintable() or any(c.isspace() for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _server_name(context: object) -> str | None:
    """The server's display name, when the session knows it."""
    session = getattr(context, "session", None)
    info = getattr(session, "server_info", None)
    for name in (getattr(info, "title", None), getattr(info, "name", None)):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return None


def _header(server: str | None) -> str | None:
    if server is None or len(server) <= _LONGEST_HEADER:
        return server
    return server[: _LONGEST_HEADER - 1] + "…"


def _who(server: str | None) -> str:
    return "an unnamed server" if server is None else repr(server)
