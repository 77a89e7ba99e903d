"""One-line asks: ``confirm``, ``select``, ``checkbox`` and ``text`` on a context.

Each builds one single-question request (id ``"answer"``) and goes through ``ask()`` /
``ask_sync()``, so validation, timeouts, signals and every provider behave as for any
ask; then it reads the one answer. Only an explicit answer counts: a skipped question
(and custom text on a yes/no question) is ``ASK_DECLINED``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Iterable, Union

from ._approval import Approval, approval_request, noting_who_answers, read_approval
from ._errors import ASK_DECLINED, INVALID_REQUEST, UserInteractionError
from ._model import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest

if TYPE_CHECKING:
    from ._abort import AbortSignal
    from ._model import AskUserQuestionAnswer, AskUserQuestionAnswerItem

__all__ = ["ANSWER_ID", "OptionLike"]

#: The id of the one question a one-line ask asks (what a test script answers).
ANSWER_ID: Final = "answer"
YES: Final = "Yes"
NO: Final = "No"

#: An option as ``select`` / ``checkbox`` take it: a label, or a full option.
OptionLike = Union[str, AskUserQuestionOption]

_YES_NO: Final = (AskUserQuestionOption(YES), AskUserQuestionOption(NO))


class _Prompts:
    """The one-line asks of :class:`~user_interaction.UserInteraction` (a mixin)."""

    __slots__ = ()

    if TYPE_CHECKING:

        async def ask(
            self, request: AskUserQuestionRequest, *, timeout: float | None = None
        ) -> AskUserQuestionAnswer: ...

        def ask_sync(
            self, request: AskUserQuestionRequest, *, timeout: float | None = None
        ) -> AskUserQuestionAnswer: ...

    async def confirm(
        self,
        question: str,
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        """Ask a yes/no question: ``True`` for ``Yes``, ``False`` for ``No``.

        A skipped question or custom text instead of a choice is ``ASK_DECLINED``; every
        other outcome raises as :meth:`ask` does.
        """
        request = _request(question, header, detail, signal, _YES_NO)
        return _confirmed(await self.ask(request, timeout=timeout))

    def confirm_sync(
        self,
        question: str,
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        """:meth:`confirm` for synchronous callers (see :meth:`ask_sync`)."""
        request = _request(question, header, detail, signal, _YES_NO)
        return _confirmed(self.ask_sync(request, timeout=timeout))

    async def approve(
        self,
        question: str,
        *,
        remember: str | None = None,
        header: str | None = "Approve",
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> Approval:
        """Ask for permission: ``Allow`` or ``Deny``, and with ``remember`` (the name of
        what is approved, such as ``"tool:deploy"``) ``Always allow`` and ``Always deny``.

        Custom text is a denial, with that text (what to do instead) as the ``reason``;
        notes on a choice come back as the ``reason`` too. A remembered ``Always ...``
        (see ``RememberedDecisions``) answers at once with ``remembered=True``. A skipped
        question is ``ASK_DECLINED``; every other outcome raises as :meth:`ask` does.
        """
        request = approval_request(question, remember, header, detail, signal)
        with noting_who_answers() as answered_by:
            answer = await self.ask(request, timeout=timeout)
        return read_approval(answer, answered_by)

    def approve_sync(
        self,
        question: str,
        *,
        remember: str | None = None,
        header: str | None = "Approve",
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> Approval:
        """:meth:`approve` for synchronous callers (see :meth:`ask_sync`)."""
        request = approval_request(question, remember, header, detail, signal)
        with noting_who_answers() as answered_by:
            answer = self.ask_sync(request, timeout=timeout)
        return read_approval(answer, answered_by)

    async def select(
        self,
        question: str,
        options: Iterable[OptionLike],
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str:
        """Ask for one of ``options`` (labels or options): the chosen label, or the custom
        text typed instead. A skipped question is ``ASK_DECLINED``."""
        request = _request(question, header, detail, signal, _options(options))
        return _selected(await self.ask(request, timeout=timeout))

    def select_sync(
        self,
        question: str,
        options: Iterable[OptionLike],
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str:
        """:meth:`select` for synchronous callers (see :meth:`ask_sync`)."""
        request = _request(question, header, detail, signal, _options(options))
        return _selected(self.ask_sync(request, timeout=timeout))

    async def checkbox(
        self,
        question: str,
        options: Iterable[OptionLike],
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> list[str]:
        """Ask for any of ``options``: the chosen labels in offered order (``[]`` when
        none is chosen), or ``[text]`` for custom text. A question the answer leaves out
        is ``ASK_DECLINED``."""
        request = _request(question, header, detail, signal, _options(options), multi=True)
        return _checked(request, await self.ask(request, timeout=timeout))

    def checkbox_sync(
        self,
        question: str,
        options: Iterable[OptionLike],
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> list[str]:
        """:meth:`checkbox` for synchronous callers (see :meth:`ask_sync`)."""
        request = _request(question, header, detail, signal, _options(options), multi=True)
        return _checked(request, self.ask_sync(request, timeout=timeout))

    async def text(
        self,
        question: str,
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str:
        """Ask for free text and return it. A skipped question is ``ASK_DECLINED``."""
        request = _request(question, header, detail, signal, ())
        return _typed(await self.ask(request, timeout=timeout))

    def text_sync(
        self,
        question: str,
        *,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str:
        """:meth:`text` for synchronous callers (see :meth:`ask_sync`)."""
        request = _request(question, header, detail, signal, ())
        return _typed(self.ask_sync(request, timeout=timeout))


# -- building the request ------------------------------------------------------------------


def _request(
    question: str,
    header: str | None,
    detail: str | None,
    signal: AbortSignal | None,
    options: tuple[AskUserQuestionOption, ...],
    *,
    multi: bool = False,
) -> AskUserQuestionRequest:
    item = AskUserQuestionItem(ANSWER_ID, question, header, options, multi, detail)
    return AskUserQuestionRequest((item,), signal=signal)


def _options(options: Iterable[OptionLike]) -> tuple[AskUserQuestionOption, ...]:
    """Labels become options; at least one is needed (blank and duplicate labels are
    rejected by the request's validation, like any ask's)."""
    if isinstance(options, (str, bytes)):
        raise TypeError(
            f"options: expected labels or AskUserQuestionOption objects, "
            f"got {type(options).__name__}"
        )
    built = tuple(
        AskUserQuestionOption(option) if isinstance(option, str) else option for option in options
    )
    if not built:
        raise UserInteractionError(
            "questions[0].options: at least one option is required", INVALID_REQUEST
        )
    return built


# -- reading the answer --------------------------------------------------------------------


def _item(answer: AskUserQuestionAnswer) -> AskUserQuestionAnswerItem:
    item = answer.get(ANSWER_ID)
    if item is None:
        raise UserInteractionError("The question was not answered.", ASK_DECLINED)
    return item


def _declined_skip() -> UserInteractionError:
    return UserInteractionError("The question was skipped.", ASK_DECLINED)


def _confirmed(answer: AskUserQuestionAnswer) -> bool:
    item = _item(answer)
    if item.custom is not None:
        raise UserInteractionError(
            f"The answer was neither Yes nor No: {item.custom!r}.", ASK_DECLINED
        )
    if not item.selected:
        raise _declined_skip()
    return item.selected[0] == YES


def _selected(answer: AskUserQuestionAnswer) -> str:
    item = _item(answer)
    if item.custom is not None:
        return item.custom
    if not item.selected:
        raise _declined_skip()
    return item.selected[0]


def _checked(request: AskUserQuestionRequest, answer: AskUserQuestionAnswer) -> list[str]:
    item = _item(answer)
    if item.custom is not None:
        return [item.custom]
    chosen = set(item.selected)
    return [option.label for option in request.questions[0].options if option.label in chosen]


def _typed(answer: AskUserQuestionAnswer) -> str:
    item = _item(answer)
    if item.custom is None:  # selections are impossible: the question offers no options
        raise _declined_skip()
    return item.custom
