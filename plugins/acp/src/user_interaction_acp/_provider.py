"""The provider: asks in the ACP client of the session whose prompt turn is asking."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Final, TypeVar

from acp import RequestError
from acp.schema import ElicitationFormSessionMode, RequestPermissionResponse

from user_interaction import (
    ASK_CANCELLED,
    PROVIDER_FAILED,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)

from ._form import FormPlan
from ._permission import (
    InclusionPlan,
    PermissionPlan,
    check_permission_fallback,
    multi_select_answer,
)
from ._session import current_turn, is_turn

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ._session import AcpBridge, AcpTurn, ClientConnection

__all__ = ["AcpProvider"]

_T = TypeVar("_T")

_METHOD_NOT_FOUND: Final = -32601
_REQUEST_CANCELLED: Final = -32800


class AcpProvider:
    """Asks in the editor (or any ACP client) of the session whose prompt turn is asking.

    With a client that advertised ``elicitation.form`` at ``initialize``, the whole request
    is one ``elicitation/create`` form; otherwise each single-select question is one
    ``session/request_permission`` and each option of a multi-select question one more
    (include or skip); a free-text question then fails with ``PROVIDER_FAILED``. The
    provider holds no connection itself: it finds the :class:`AcpTurn` in
    ``request.agent`` or, more often, in the running context (``with
    bridge.turn(session_id):``), so it can be built without arguments, as the ``acp`` entry
    point does, and reloaded or swapped at any time.

    ``notes=True`` adds a "Notes" field per question with options to the form, for notes
    beside the choice; it is off by default so forms stay short. Permission prompts have
    no room for notes.
    """

    #: The name the manager reports for this provider.
    name: Final = "acp"

    @staticmethod
    def available() -> bool:
        """Never chosen implicitly: an ACP agent names it (use("acp"))."""
        return False

    def __init__(self, *, notes: bool = False) -> None:
        if not isinstance(notes, bool):
            raise TypeError(f"notes must be True or False, got {notes!r}")
        #: Whether forms offer a notes field beside each choice.
        self.notes = notes

    def __repr__(self) -> str:
        return "<AcpProvider notes>" if self.notes else "<AcpProvider>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show ``request`` in the client of the asking session and return the answer."""
        turn = _turn_of(request)
        bridge = turn.bridge
        connection = bridge.require_connection()
        signals = [s for s in (request.signal, turn.signal) if s is not None]
        stop = signals[0] if len(signals) == 1 else AbortSignal.any(signals)
        if stop.aborted:
            raise stop.error()
        if bridge.supports_form:
            try:
                return await _ask_form(bridge, connection, turn, request, stop, notes=self.notes)
            except _FormNotServed as refused:
                bridge.refuse_form()  # and ask the way a client without forms is asked
                try:
                    check_permission_fallback(
                        request.questions,
                        "advertised form elicitation but does not serve "
                        f"elicitation/create ({refused.cause})",
                    )
                except UserInteractionError as error:
                    raise error from refused.cause
        return await _ask_permissions(bridge, connection, turn, request, stop)


class _FormNotServed(Exception):
    def __init__(self, cause: RequestError) -> None:
        super().__init__(str(cause))
        self.cause = cause


async def _ask_form(
    bridge: AcpBridge,
    connection: ClientConnection,
    turn: AcpTurn,
    request: AskUserQuestionRequest,
    stop: AbortSignal,
    *,
    notes: bool,
) -> AskUserQuestionAnswer:
    plan = FormPlan(request.questions, notes=notes)
    mode = ElicitationFormSessionMode(
        session_id=turn.session_id, tool_call_id=turn.tool_call_id, requested_schema=plan.schema
    )
    try:
        reply = await _send(
            bridge,
            lambda: connection.create_elicitation(message=plan.message, mode=mode),
            stop,
            "elicitation/create",
        )
    except UserInteractionError as error:
        cause = error.__cause__
        if isinstance(cause, RequestError) and cause.code == _METHOD_NOT_FOUND:
            raise _FormNotServed(cause) from cause
        raise
    return plan.read(reply)


async def _ask_permissions(
    bridge: AcpBridge,
    connection: ClientConnection,
    turn: AcpTurn,
    request: AskUserQuestionRequest,
    stop: AbortSignal,
) -> AskUserQuestionAnswer:
    check_permission_fallback(request.questions)

    async def prompt(plan: PermissionPlan | InclusionPlan) -> RequestPermissionResponse:
        return await _send(
            bridge,
            partial(
                connection.request_permission,
                session_id=turn.session_id,
                tool_call=plan.tool_call,
                options=plan.options,
            ),
            stop,
            "session/request_permission",
        )

    answers = []
    for item in request.questions:  # one prompt per question (per option if multi), in order
        if item.multi_select:
            included = []
            for position in range(len(item.options)):
                plan = InclusionPlan(item, position)
                included.append(plan.read(await prompt(plan)))
            answers.append(multi_select_answer(item, included))
        else:
            single = PermissionPlan(item)
            answers.append(single.read(await prompt(single)))
    return AskUserQuestionAnswer(answers)


async def _send(
    bridge: AcpBridge,
    send: Callable[[], Awaitable[_T]],
    stop: AbortSignal,
    method: str,
) -> _T:
    """One request through the bridge; a transport or protocol failure becomes
    ``PROVIDER_FAILED`` with the cause kept."""
    try:
        return await bridge.request(send, stop)
    except UserInteractionError:
        raise
    except RequestError as exc:
        code = ASK_CANCELLED if exc.code == _REQUEST_CANCELLED else PROVIDER_FAILED
        raise UserInteractionError(
            f"The ACP client answered {method} with error {exc.code}: {exc}", code, cause=exc
        ) from exc
    except Exception as exc:
        raise UserInteractionError(
            f"The ACP connection failed during {method}: {type(exc).__name__}: {exc}",
            PROVIDER_FAILED,
            cause=exc,
        ) from exc


def _turn_of(request: AskUserQuestionRequest) -> AcpTurn:
    if is_turn(request.agent):
        return request.agent  # type: ignore[return-value]
    turn = current_turn()
    if turn is None:
        raise RuntimeError(
            "The acp provider does not know the ACP session to ask in: make the ask inside "
            "'with bridge.turn(session_id):' (around the agent's prompt handling) or pass "
            "the turn as AskUserQuestionRequest(..., agent=turn)."
        )
    return turn
