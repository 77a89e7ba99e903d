"""``UserInteractionFixture``: a fresh context with a :class:`ScriptedProvider` active.

It is what the pytest fixture ``user_interaction`` yields, and works without pytest too
(``with UserInteractionFixture() as kit: ...``).
"""

from __future__ import annotations

from types import TracebackType
from typing import Mapping, Pattern

from user_interaction import AskUserQuestionItem, AskUserQuestionRequest, UserInteraction

from ._scripted import ScriptedProvider
from ._specs import AnswerSpec

__all__ = ["UserInteractionFixture"]

_KEEP = object()


class UserInteractionFixture:
    """A :class:`~user_interaction.UserInteraction` (``ui``) whose active provider is a
    :class:`ScriptedProvider` (``provider``), with shortcuts to script and inspect it.

    Hand ``ui`` to the code under test; script answers with :meth:`answer` / :meth:`when`;
    check what was asked with :attr:`asked_ids`, :meth:`assert_asked` and friends.
    """

    def __init__(self, provider: ScriptedProvider | None = None) -> None:
        #: The scripted provider answering the asks of :attr:`ui`.
        self.provider = ScriptedProvider() if provider is None else provider
        #: A fresh context with :attr:`provider` active: the one the code under test uses.
        self.ui = UserInteraction()
        self.ui.register_provider(self.provider)

    def answer(
        self,
        answers: Mapping[str, AnswerSpec] | None = None,
        /,
        *,
        default: AnswerSpec | object | None = _KEEP,
        **by_id: AnswerSpec,
    ) -> UserInteractionFixture:
        """Script answers by question id, and optionally the ``default``; returns ``self``.

        ``default=`` sets the answer for questions no rule covers; to script a question
        whose id is literally ``"default"``, pass a dict: ``answer({"default": "yes"})``.
        """
        self.provider.answer(answers, **by_id)
        if default is not _KEEP:
            self.provider.default = default  # type: ignore[assignment]
        return self

    def when(
        self,
        id: str | None = None,
        *,
        pattern: str | Pattern[str] | None = None,
        answer: AnswerSpec,
    ) -> UserInteractionFixture:
        """Add a rule by id or by a pattern on the question text; returns ``self``."""
        self.provider.when(id, pattern=pattern, answer=answer)
        return self

    @property
    def requests(self) -> list[AskUserQuestionRequest]:
        """Every request the provider received, in order."""
        return self.provider.requests

    @property
    def questions_asked(self) -> list[AskUserQuestionItem]:
        """Every question asked, in order."""
        return self.provider.questions_asked

    @property
    def asked_ids(self) -> list[str]:
        """The ids of every question asked, in order (repeats included)."""
        return self.provider.asked_ids

    def question(self, id: str) -> AskUserQuestionItem:
        """The question last asked with this ``id`` (``AssertionError`` if never asked)."""
        return self.provider.question(id)

    def assert_asked(self, *ids: str) -> None:
        """Fail unless every one of ``ids`` was asked (without ids: unless anything was)."""
        self.provider.assert_asked(*ids)

    def assert_not_asked(self, *ids: str) -> None:
        """Fail if any of ``ids`` was asked (without ids: if anything was)."""
        self.provider.assert_not_asked(*ids)

    def close(self) -> None:
        """Dispose the provider and close the context; idempotent."""
        self.ui.close()

    def __enter__(self) -> UserInteractionFixture:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<UserInteractionFixture asked={self.asked_ids!r}>"
