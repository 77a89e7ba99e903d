"""The provider: answers every ask from the answers file, failing closed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final, Union

from user_interaction import (
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)
from user_interaction.extensions import INVALID_ANSWERS_FILE, AnswersFile

__all__ = ["ANSWERS_ENV", "AnswersFileProvider"]

#: The environment variable naming the answers file.
ANSWERS_ENV: Final = "USER_INTERACTION_ANSWERS"

PathLike = Union[str, "os.PathLike[str]"]


class AnswersFileProvider:
    """Answers questions from a JSON answers file, for CI runs and agent evaluations.

    ``path`` defaults to the file named by ``USER_INTERACTION_ANSWERS``. The file is read
    and checked when the provider is built — so ``use("scripted")`` fails at once, with
    ``PROVIDER_LOAD_FAILED``, on a missing or malformed file — and read again at every ask,
    so a harness may rewrite it between asks. A question the file does not answer fails
    the ask with ``UNANSWERED_QUESTION`` naming its id; a file that has become unreadable
    or malformed fails it with ``INVALID_ANSWERS_FILE``. Never an empty answer.
    """

    #: The name the manager reports for this provider.
    name: Final = "scripted"
    #: Answers do not wait for a human: concurrent asks are answered concurrently.
    serial: Final = False
    #: Chosen over every terminal or web UI when an answers file is set.
    priority: Final = 50

    @staticmethod
    def available() -> bool:
        """Only when USER_INTERACTION_ANSWERS names an answers file."""
        return bool(os.environ.get(ANSWERS_ENV, "").strip())

    def __init__(self, path: PathLike | None = None) -> None:
        if path is None:
            path = os.environ.get(ANSWERS_ENV, "")
            if not path.strip():
                raise UserInteractionError(
                    f"{ANSWERS_ENV} is not set: point it at a JSON answers file "
                    '(e.g. {"answers": {"pkg": "pnpm"}}; see the user-interaction-scripted '
                    "README)",
                    INVALID_ANSWERS_FILE,
                )
        #: The answers file.
        self.path = Path(path)
        self._current = AnswersFile.follow(self.path)

    def __repr__(self) -> str:
        return f"<AnswersFileProvider {str(self.path)!r}>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Answer ``request`` from the answers file. A ``delay`` or a ``silent`` answer
        waits on the ask's signal, which the manager fires on abort, timeout and disposal
        (``PROVIDER_DISPOSED``) alike."""
        signal = request.signal if request.signal is not None else AbortController().signal
        if signal.aborted:
            raise signal.error()
        book = self._current()
        answered = book.answer(request)
        if book.delay or answered.silent:
            import asyncio

            if book.delay:
                await signal.race(asyncio.sleep(book.delay))
            if answered.silent:  # stays silent until the ask ends
                await signal.race(asyncio.get_running_loop().create_future())
        if answered.error is not None:
            raise answered.error
        return AskUserQuestionAnswer(answered.items)
